import { createHmac } from 'node:crypto';
import { isDomainError } from '../common/errors';
import { acceptedTokenHours } from './authenticator';
import { computeToken, looksLikeToken, tokenHour, tokensEqual } from './api-token';

/** Why a pasted token is not valid now, as far as the checker can tell; `valid` when it is. */
export type TokenProblem =
  | 'valid'
  | 'empty'
  | 'timestamp'
  /** Built for another UTC hour than the server's: a clock or time-zone problem. */
  | 'another_hour'
  /** Built from the email written in another case than the `username` header sends. */
  | 'username_case'
  /** Spaces or line breaks inside the token. */
  | 'spaces'
  /** base64 of the HMAC's raw bytes instead of its hexadecimal text. */
  | 'raw_digest'
  /** The hexadecimal text, not base64-encoded. */
  | 'hex_digest'
  /** The HMAC keyed with the API key over the email and hour, instead of the other way round. */
  | 'swapped'
  /** A token's shape, but not made with the current key near now: an old (rotated) key, another key, a typo. */
  | 'not_current_key'
  | 'not_a_token';

export interface TokenCheck {
  readonly valid: boolean;
  readonly problem: TokenProblem;
  /** What to do about it, in words a reseller can act on; never the key or the expected token. */
  readonly message: string;
  /** The hour string (yy-mm-dd HH, UTC) the server builds tokens from now. */
  readonly serverHour: string;
  /** The hour the pasted token was built for, when the checker found it. */
  readonly tokenHour?: string;
}

export interface TokenCheckInput {
  /** The token as pasted. */
  readonly token: string;
  /** The `username` header the client sends (the account's email, in the case the client writes it). */
  readonly username: string;
  /** The account's email as stored (lower case). */
  readonly email: string;
  /** The reseller's current API key: used to compute, never answered. */
  readonly apiKey: string;
  readonly now: Date;
  /** The `timestamp` header the client sends, if it sends one. */
  readonly timestamp?: string;
}

const HOUR_MS = 3_600_000;
/** How far from now a token's hour is looked for: a day either way covers every time zone. */
const HOURS_AROUND = 26;

type Variant = { problem: TokenProblem; make: (username: string, apiKey: string, at: Date) => string };

const hmac = (key: string, message: string) => createHmac('sha256', key).update(message);
/** The ways a client gets the construction of docs/api.md#the-token wrong, each recognisable from its result. */
const MISTAKES: readonly Variant[] = [
  {
    problem: 'raw_digest',
    make: (u, k, at) => hmac(`${u}:${tokenHour(at)}`, k).digest('base64'),
  },
  {
    problem: 'hex_digest',
    make: (u, k, at) => hmac(`${u}:${tokenHour(at)}`, k).digest('hex'),
  },
  {
    problem: 'swapped',
    make: (u, k, at) => Buffer.from(hmac(k, `${u}:${tokenHour(at)}`).digest('hex'), 'utf8').toString('base64'),
  },
];

/**
 * Says whether a pasted token would authenticate now, and if not the likeliest reason (the API
 * page of the portal). The same rules as `Authenticator`: the hours of `acceptedTokenHours`, the
 * `username` header as sent, surrounding spaces ignored. The answer names hours and reasons only:
 * the key and the expected token never leave this function.
 */
export function checkToken(input: TokenCheckInput): TokenCheck {
  const serverHour = tokenHour(input.now);
  const answer = (problem: TokenProblem, message: string, at?: Date): TokenCheck => ({
    valid: problem === 'valid',
    problem,
    message,
    serverHour,
    ...(at ? { tokenHour: tokenHour(at) } : {}),
  });
  const username = input.username.trim();
  const pasted = input.token.trim();
  if (pasted === '') return answer('empty', 'Paste the token your client sends in the token header.');
  let hours: Date[];
  try {
    hours = acceptedTokenHours(input.now, input.timestamp);
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return answer('timestamp', error.message);
  }
  const madeAt = (token: string, hoursToTry: readonly Date[], make = computeToken, name = username) =>
    hoursToTry.find((at) => tokensEqual(make(name, input.apiKey, at), token));

  const now = madeAt(pasted, hours);
  if (now) return answer('valid', `Valid now: built for the hour ${tokenHour(now)} (UTC).`, now);

  // A token is base64 of hexadecimal text, so it never holds + or /: whitespace inside it is all a paste can add.
  const joined = pasted.replace(/\s+/g, '');
  if (joined !== pasted && madeAt(joined, hours))
    return answer('spaces', 'It has spaces or line breaks inside it: send it as one line, exactly 88 characters.');

  const token = joined;
  const around = Array.from(
    { length: 2 * HOURS_AROUND + 1 },
    (_, i) => new Date(input.now.getTime() + (i - HOURS_AROUND) * HOUR_MS),
  );
  const otherHour = madeAt(token, around);
  if (otherHour) {
    const hoursOff = Math.round((otherHour.getTime() - input.now.getTime()) / HOUR_MS);
    return answer(
      'another_hour',
      `Built for the hour ${tokenHour(otherHour)}, ${Math.abs(hoursOff)} hour(s) ${hoursOff < 0 ? 'behind' : 'ahead of'} the server's ${serverHour} (UTC): build it from the current UTC time (a clock set to local time, or a token kept from earlier).`,
      otherHour,
    );
  }
  for (const name of new Set([input.email, username.toLowerCase()])) {
    if (name === username) continue;
    const at = madeAt(token, around, computeToken, name);
    if (at)
      return answer(
        'username_case',
        `Built from the email written "${name}" while the username header says "${username}": the two must be written the same, letter for letter.`,
        at,
      );
  }
  for (const mistake of MISTAKES) {
    const at = madeAt(token, around, mistake.make);
    if (at) return answer(mistake.problem, MISTAKE_MESSAGES[mistake.problem as keyof typeof MISTAKE_MESSAGES], at);
  }
  if (!looksLikeToken(token))
    return answer(
      'not_a_token',
      `A token is 88 characters of base64 ending in "=="; this is ${[...token].length} characters. Check that the whole token was pasted.`,
    );
  return answer(
    'not_current_key',
    'It was not made with your current API key for any hour near now: an old key (keys stop working as soon as they are rotated), the key of another account, or a typo in the key.',
  );
}

const MISTAKE_MESSAGES = {
  raw_digest:
    'It is base64 of the raw HMAC bytes; the token is base64 of the HMAC written as lowercase hexadecimal text (64 characters), 88 characters in all.',
  hex_digest: 'It is the HMAC in hexadecimal; base64-encode that text to get the 88-character token.',
  swapped:
    'The HMAC was keyed with the API key over "email:hour"; it must be keyed with "email:hour" over the API key.',
} as const;
