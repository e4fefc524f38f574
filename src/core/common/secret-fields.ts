/**
 * The one rule for which fields hold secrets, wherever something is written down: the API log's
 * request and reply bodies, the process log, the audit log. A field is secret when its name, in
 * any case and with separators left out (`EPP-Code`, `auth_info`, `x-api-key`), contains one of
 * these words. A writer may keep more out for its own reasons (the process log: personal data),
 * never less.
 */
export const SECRET_WORDS: readonly string[] = [
  'eppcode',
  'authcode',
  'authinfo',
  'transfercode',
  'password',
  'passwd',
  'passphrase',
  'passcode',
  'token',
  'apikey',
  'secret',
  'masterkey',
  'sealed',
  'recovery',
  'hash',
  'authorization',
  'cookie',
];

const SECRET_WORD = new RegExp(SECRET_WORDS.join('|'));
const SEPARATORS = /[^a-z]/g;

/** A field name as the rule reads it: lower case, letters only. */
const normalised = (name: string) => name.toLowerCase().replace(SEPARATORS, '');

/** Field names already judged; names repeat (a log's keys), so each is judged once. Bounded. */
const judged = new Map<string, boolean>();
const JUDGED_MAX = 10_000;

/** Whether a field of this name holds a secret, and so is never written down as it is. */
export function isSecretField(name: string): boolean {
  let verdict = judged.get(name);
  if (verdict === undefined) {
    verdict = SECRET_WORD.test(normalised(name));
    if (judged.size >= JUDGED_MAX) judged.clear();
    judged.set(name, verdict);
  }
  return verdict;
}

/**
 * Whether a text could name a secret field (any of the words, case and separators ignored): when
 * it cannot, it holds no secret field and need not be parsed to be redacted.
 */
export function mayNameSecretField(text: string): boolean {
  return SECRET_WORD.test(normalised(text));
}
