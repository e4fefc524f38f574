import { ADDONS, MAX_PERIOD, MIN_PERIOD, type AddonName, type OrderAction, type Tld } from '../catalogue/catalogue';
import type { CatalogueService } from '../catalogue/catalogue-service';
import { premiumPrice } from '../catalogue/premium';
import { heldAddons, type DomainRecord, type PremiumCosts } from '../domain/domain';
import type { RegistrableDomain } from '../domain/domain-name';
import { disabledRegistrar } from '../registrar/guarded-registrar';
import type { Contacts } from '../registrar/plugin';
import { DomainError } from '../common/errors';
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import { formatAmount, type Minor } from '../common/money';
import type { UnitOfWork } from '../common/unit-of-work';
import { assertCompleteRegistrant, withDefaultRegistrant } from './contacts';
import type { Order, OrderRequest } from './order';
import { NOUN } from './order-settlement';
import type { OrderingReseller, RegisterCommand, RenewCommand, TransferCommand } from './order-commands';
import type { OrderRegistrar, RegistrarAnswer } from './order-registrar';
import { notOwned } from '../domain/domain-errors';
import { normaliseNameservers } from '../domain/domain-settings';

/** Everything phase 1 needs, worked out before the transaction from the catalogue and the command. */
export interface Plan {
  readonly action: OrderAction;
  readonly domain: RegistrableDomain;
  readonly registrar: string;
  readonly period: number;
  readonly price: Minor;
  readonly request: OrderRequest;
  readonly originalVars: string | null;
  /** Phase 2: the registrar call, made outside any transaction. */
  readonly call: (order: Order) => Promise<RegistrarAnswer>;
  /** A register or transfer sold as premium: the registry's yearly costs, kept on the domain record. */
  readonly premiumCosts?: PremiumCosts;
}

/** A premium price worked out for an order: the total for the period, and the registry's yearly costs. */
interface PremiumCharge {
  readonly total: Minor;
  /** The registry's yearly cost for the order's action, which the registrar is told it may charge. */
  readonly cost: Minor;
  /** Every yearly cost the registrar gave for the name. */
  readonly costs: PremiumCosts;
}

const MAX_ORIGINAL_VARS = 16 * 1024;

/**
 * Planning an order: everything checked and priced before any money moves, with reads only
 * (the catalogue, the group's default registrant, the domain being renewed, the registrar's
 * premium answer). An order refused here has written nothing.
 */
export class OrderPlanner {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly registrar: OrderRegistrar,
    private readonly catalogue: CatalogueService,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  async newDomain(
    reseller: OrderingReseller,
    action: 'register' | 'transfer',
    command: RegisterCommand | TransferCommand,
  ): Promise<Plan> {
    const { domain, tld } = await this.catalogue.resolveDomain(reseller.groupId, command.domain);
    this.assertRegistrarAvailable(tld.registrar, domain.unicode);
    if (action === 'transfer' && !this.registrar.supports(tld.registrar, 'transfer')) {
      throw new DomainError(
        'capability_missing',
        `The registrar serving ${tld.tld} does not support transfers (capability "transfer")`,
      );
    }
    const addons = enabledAddons(command.addons);
    const charge = await this.catalogueCharge(reseller, action, tld, command.period, addons);
    const nameservers = normaliseNameservers(command.nameservers);
    // The group is read only for its default registrant, so only when the order carries none.
    const group = command.contacts.registrant ? undefined : await this.uow.read.groups.findById(reseller.groupId);
    const contacts: Contacts = withDefaultRegistrant(command.contacts, group?.defaultContact ?? null);
    assertCompleteRegistrant(contacts.registrant!);
    const originalVars = checkOriginalVars(command.originalVars);
    // Asked last: an order refused for its own input costs no registrar call.
    const premium = await this.premiumPriceOf(reseller, action, tld.registrar, domain, command);
    const price = priceWith(charge, premium?.total);
    const eppCode = action === 'transfer' ? (command as TransferCommand).eppCode : undefined;
    const request: OrderRequest = {
      nameservers,
      contacts,
      addons,
      fields: command.fields,
      ...(command.idnLanguage && { idnLanguage: command.idnLanguage }),
    };
    const registrarInput = {
      domain: domain.ascii,
      period: command.period,
      nameservers,
      contacts,
      addons: Object.fromEntries(ADDONS.map((a) => [a, addons.includes(a)])),
      fields: command.fields,
      ...(command.idnLanguage && { idnLanguage: command.idnLanguage }),
      ...(premium && { premiumCost: premium.cost }),
    };
    return {
      action,
      domain,
      registrar: tld.registrar,
      period: command.period,
      price,
      request,
      originalVars,
      call: (order) =>
        action === 'transfer'
          ? this.registrar.transfer(order.registrar, { ...registrarInput, eppCode: eppCode! }, order.id)
          : this.registrar.register(order.registrar, registrarInput, order.id),
      ...(premium && { premiumCosts: premium.costs }),
    };
  }

  async renewal(reseller: OrderingReseller, command: RenewCommand): Promise<Plan> {
    const { domain, tld } = await this.catalogue.resolveDomain(reseller.groupId, command.domain);
    const existing = await this.uow.read.domains.findByName(domain.ascii);
    if (!existing || existing.resellerId !== reseller.id) throw notOwned(domain.unicode);
    this.assertRegistrarAvailable(existing.registrar, domain.unicode);
    // docs/orders.md#addons-turned-on-later: a renewal renews the addons the domain has, at their
    // prices, and only those: it turns nothing on, so an addon the request names that the domain
    // lacks is neither charged nor enabled (billing modules send their own record's flags).
    const addons = heldAddons(existing.addons);
    const notHeld = enabledAddons(command.addons).filter((addon) => !addons.includes(addon));
    if (notHeld.length > 0)
      this.logger.info(
        { domain: domain.ascii, addons: notHeld },
        'renewal: addons asked for that the domain does not have are not charged or turned on',
      );
    const charge = await this.catalogueCharge(reseller, 'renew', tld, command.period, addons);
    // Asked last: a renewal refused for its own input costs no registrar call.
    const premium = await this.premiumPriceOf(reseller, 'renew', existing.registrar, domain, command, existing);
    const price = priceWith(charge, premium?.total);
    return {
      action: 'renew',
      domain,
      registrar: existing.registrar,
      period: command.period,
      price,
      originalVars: null,
      request: { addons, ...(command.idnLanguage && { idnLanguage: command.idnLanguage }) },
      call: (order) =>
        this.registrar.renew(
          order.registrar,
          {
            domain: domain.ascii,
            period: order.period,
            currentExpiryDate: order.priorDomain?.expiryDate ?? null,
            ...(premium && { premiumCost: premium.cost }),
          },
          order.id,
        ),
    };
  }

  /** A registrar whose plugin is gone could never answer: refuse before any money moves, not after. */
  private assertRegistrarAvailable(registrarId: string, domain: string): void {
    if (this.registrar.isDisabled(registrarId)) {
      this.logger.error({ registrar: registrarId, domain }, 'order refused: the registrar plugin failed to load');
      throw new DomainError(
        'registrar_disabled',
        `${disabledRegistrar(registrarId)}. Nothing was charged for ${domain}`,
      );
    }
    if (!this.registrar.isAvailable(registrarId)) {
      this.logger.error({ registrar: registrarId, domain }, 'order refused: the registrar plugin is not installed');
      throw new DomainError(
        'registrar_failed',
        `The registrar for ${domain} is not available at the moment; nothing was charged`,
      );
    }
  }

  /**
   * docs/orders.md#premium-names: the premium price of the order's name for its period (and the
   * registry's yearly cost it was made from, which the registrar is told it may charge), or
   * undefined when the catalogue price applies. The registrar is asked the price of this action
   * and period (a renewal or transfer of a registered name through its price question). A
   * premium name is sold only at the group's premium price, only to a request that accepts at
   * least that price (premiumCost, or a quote search gave this reseller: docs/orders.md#premium-quotes);
   * otherwise the order is refused before any money moves. A name the platform sold as premium is
   * never renewed or transferred at the catalogue price because its registrar cannot tell.
   */
  private async premiumPriceOf(
    reseller: OrderingReseller,
    action: OrderAction,
    registrarId: string,
    domain: RegistrableDomain,
    command: { readonly period: number; readonly premiumCost?: Minor },
    known?: DomainRecord,
  ): Promise<PremiumCharge | undefined> {
    const answer = await this.registrar.premium(registrarId, domain.ascii, { action, period: command.period });
    if (answer.kind === 'standard') return undefined;
    if (answer.kind === 'cannot_tell') {
      // Issue 26 item 1: a registered name's availability carries no premium flag; our record remembers.
      if (action !== 'register') await this.refuseIfSoldPremium(action, domain, known);
      return undefined;
    }
    if (answer.kind === 'unknown')
      throw new DomainError(
        'registrar_failed',
        `Could not learn from the registrar whether ${domain.unicode} is a premium name (${answer.message}); nothing was charged`,
      );
    const rule = await this.catalogue.premiumRule(reseller.groupId);
    if (!rule)
      throw new DomainError(
        'not_offered',
        `${domain.unicode} is a premium name; premium names are not sold to your account; nothing was charged`,
      );
    const cost = answer.cost[action];
    const yearly = cost === undefined ? undefined : premiumPrice(rule, cost);
    if (yearly === undefined)
      throw new DomainError(
        'not_offered',
        `${domain.unicode} is a premium name and has no premium ${NOUN[action]} price for your account; nothing was charged`,
      );
    const total = yearly * command.period;
    const charge = { total, cost: cost!, costs: answer.cost };
    if (command.premiumCost !== undefined && command.premiumCost >= total) return charge;
    // Issue 26 item 6: a billing module that never sends premiumCost on orders (the deployed
    // WHMCS module) is held to the price search quoted this reseller, never charged more.
    const quote =
      command.premiumCost === undefined
        ? await this.uow.read.catalogue.premiumQuote(reseller.id, domain.ascii, action, this.clock.now())
        : undefined;
    if (quote && quote.price * command.period >= total) return charge;
    const accepted =
      command.premiumCost !== undefined
        ? `, more than the premiumCost ${formatAmount(command.premiumCost)} sent`
        : quote
          ? `, more than the ${formatAmount(quote.price * command.period)} quoted to you`
          : '';
    throw new DomainError(
      'validation_failed',
      `${domain.unicode} is a premium name: the ${NOUN[action]} for ${command.period} year(s) costs ${formatAmount(total)}` +
        `${accepted}; send premiumEnabled=1 and premiumCost=${formatAmount(total)} to accept it; nothing was charged`,
    );
  }

  /**
   * The registrar cannot tell a renewal or transfer price: refused when the platform sold the name
   * as premium (its record keeps the registry's costs), rather than charged the catalogue price.
   */
  private async refuseIfSoldPremium(
    action: 'renew' | 'transfer',
    domain: RegistrableDomain,
    known: DomainRecord | undefined,
  ): Promise<void> {
    const record = known ?? (await this.uow.read.domains.findByName(domain.ascii));
    const costs = record?.premiumCosts;
    if (!costs) return;
    const then = costs[action] ?? costs.register;
    throw new DomainError(
      'not_offered',
      `${domain.unicode} was sold as a premium name` +
        `${then === undefined ? '' : ` (the registry charged ${formatAmount(then)} a year to ${action} it then)`}` +
        ` and its registrar cannot tell the ${NOUN[action]} price now; it is not ${action === 'renew' ? 'renewed' : 'transferred'} at the catalogue price; nothing was charged`,
    );
  }

  /**
   * What the catalogue charges for the period: the name's price, and each enabled addon's yearly
   * price times the period. Refuses a period the catalogue does not sell, premium names included.
   */
  private async catalogueCharge(
    reseller: OrderingReseller,
    action: OrderAction,
    tld: Tld,
    period: number,
    addons: readonly AddonName[],
  ): Promise<CatalogueCharge> {
    if (!Number.isInteger(period) || period < MIN_PERIOD || period > MAX_PERIOD) {
      throw new DomainError(
        'validation_failed',
        `regperiod must be a whole number of years from ${MIN_PERIOD} to ${MAX_PERIOD}`,
      );
    }
    const prices = await this.catalogue.priceList(reseller.groupId, tld.tld, action);
    if (prices.size === 0) throw new DomainError('not_offered', `${NOUN[action]} is not offered for ${tld.tld}`);
    const base = prices.get(period);
    if (base === undefined)
      throw new DomainError(
        'validation_failed',
        `regperiod must be one of ${[...prices.keys()].join(', ')} for ${action} of ${tld.tld}`,
      );
    const addonPrices = await this.catalogue.addonPrices(reseller.groupId);
    return { name: base, addons: addons.reduce((sum, addon) => sum + (addonPrices.get(addon) ?? 0) * period, 0) };
  }
}

interface CatalogueCharge {
  readonly name: Minor;
  readonly addons: Minor;
}

/** The order's price: the premium price for the name when it is premium, else the catalogue's; addons at the catalogue's. */
function priceWith(charge: CatalogueCharge, premium: Minor | undefined): Minor {
  return (premium ?? charge.name) + charge.addons;
}

function enabledAddons(addons: Readonly<Record<string, boolean>>): AddonName[] {
  for (const name of Object.keys(addons)) {
    if (!ADDONS.includes(name as AddonName))
      throw new DomainError(
        'validation_failed',
        `addons: unknown addon "${name.slice(0, 40)}"; addons are ${ADDONS.join(', ')}`,
      );
  }
  return ADDONS.filter((a) => addons[a] === true);
}

function checkOriginalVars(text: string | undefined): string | null {
  if (text === undefined) return null;
  if (new TextEncoder().encode(text).length > MAX_ORIGINAL_VARS)
    throw new DomainError('validation_failed', `originalvars is larger than ${MAX_ORIGINAL_VARS / 1024} KiB`);
  return text;
}
