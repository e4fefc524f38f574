import type { Minor } from '../common/money';
import type { Reseller, ResellerRepository, SecretBox } from './reseller';

/** What authentication needs to know about the reseller a request names. */
export interface AuthenticatingReseller {
  readonly reseller: Reseller;
  /** The API key in plain text: the token is an HMAC of it, so it cannot be a hash. */
  readonly apiKey: string;
  /** CIDR ranges the reseller's requests must come from; empty allows every address. */
  readonly allowedNetworks: readonly string[];
  /**
   * Optional. The reseller's credit balance, read in the same statement as the rest; a directory
   * that cannot leave it out and the balance is read from the ledger when a route needs it.
   */
  readonly balance?: Minor;
}

/**
 * Who may call the API, with which key and from where. The default reads the platform's own
 * resellers; a host that keeps its customers itself rebinds `TOKENS.resellerDirectory` (see
 * docs/embedding.md). The ids it answers with must be resellers of this module (rows that
 * domains, orders and the ledger refer to), made with `services.resellers.create`.
 */
export interface ResellerDirectory {
  /** The reseller whose email the request's `username` header carries (lower case), or undefined. */
  findForAuthentication(email: string): Promise<AuthenticatingReseller | undefined>;
}

/** The platform's own resellers, with API keys sealed at rest under the master key. */
export class StoredResellerDirectory implements ResellerDirectory {
  // Opening a sealed key costs an AES-GCM decryption; the sealed text changes on rotation, so it is the cache key.
  private readonly openedKeys = new Map<string, string>();

  /**
   * `ledgerIsStored`: the module's ledger is the platform's own (not a host's rebound one), so
   * the balance the sign-in statement reads with the reseller is the reseller's balance (ADR 12).
   */
  constructor(
    private readonly resellers: ResellerRepository,
    private readonly secrets: SecretBox,
    private readonly ledgerIsStored = false,
  ) {}

  async findForAuthentication(email: string): Promise<AuthenticatingReseller | undefined> {
    const found = await this.resellers.findByEmail(email);
    if (!found) return undefined;
    const { sealedApiKey, allowedNetworks, ledgerBalance, ...reseller } = found;
    const balance = this.ledgerIsStored ? ledgerBalance : undefined;
    return { reseller, apiKey: this.open(sealedApiKey), allowedNetworks, balance };
  }

  private open(sealed: string): string {
    let key = this.openedKeys.get(sealed);
    if (key === undefined) {
      key = this.secrets.open(sealed);
      if (this.openedKeys.size > 10_000) this.openedKeys.clear();
      this.openedKeys.set(sealed, key);
    }
    return key;
  }
}
