import { DomainError } from './errors';

const EMAIL =
  /^[^\s@<>()[\]\\,;:"]{1,64}@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

/** Emails are compared case-insensitively: stored and looked up in lower case. */
export function normaliseEmail(input: string): string {
  const email = String(input ?? '')
    .trim()
    .toLowerCase();
  if (email.length > 254 || !EMAIL.test(email))
    throw new DomainError(
      'validation_failed',
      `${JSON.stringify(String(input).slice(0, 80))} is not a valid email address`,
    );
  return email;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/;

export function normaliseName(input: string, what: string): string {
  const name = String(input ?? '').trim();
  if (!NAME.test(name))
    throw new DomainError(
      'validation_failed',
      `${what} must be 1 to 64 letters, digits, spaces, dots, dashes or underscores`,
    );
  return name;
}
