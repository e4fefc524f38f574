import type { RegistrarOutcome } from 'domain-reseller';
import { describeResult, type EppResponse } from './responses';

/** An expected registry answer that is not a success, returned (never thrown) as the contract asks. */
export type Failure = {
  readonly ok: false;
  readonly reason: 'unavailable' | 'refused' | 'pending';
  readonly message: string;
};

/** 1000 done, 1001 done later ("action pending"): both mean the registry took the command. */
export const SUCCESS = new Set([1000, 1001]);

/**
 * RFC 5730 section 3: result codes mapped onto registrar outcomes. 2400 and 2500–2502 never reach
 * here: the session pool turns them into a thrown temporary failure and reconnects.
 */
export function refusalOf(response: EppResponse, subject: string): Failure {
  const why = describeResult(response);
  switch (response.code) {
    case 2302:
      return { ok: false, reason: 'unavailable', message: `${subject} already exists at the registry: ${why}` };
    case 2303:
      return { ok: false, reason: 'refused', message: `${subject} does not exist at the registry: ${why}` };
    case 2201:
    case 2202:
      return { ok: false, reason: 'refused', message: `the registry refused authorisation for ${subject}: ${why}` };
    case 2304:
    case 2305:
    case 2306:
      return { ok: false, reason: 'refused', message: `registry policy refused ${subject}: ${why}` };
    default:
      return { ok: false, reason: 'refused', message: `the registry refused ${subject}: ${why}` };
  }
}

export const pending = (message: string): Failure => ({ ok: false, reason: 'pending', message });
export const refused = (message: string): Failure => ({ ok: false, reason: 'refused', message });

/** Success when the registry took the command, else its refusal. */
export function settled(response: EppResponse, subject: string): RegistrarOutcome {
  return SUCCESS.has(response.code) ? { ok: true } : refusalOf(response, subject);
}
