import type { Settings } from '../config/settings';
import type { FailureThrottle } from '../core/auth/failure-throttle';
import { type Token, token as coreToken } from '../core/tokens';
import type { WebSessions } from './sessions';

const token = <T>(name: string): Token<T> => coreToken<T>(`web/${name}`);

/** What the pages resolve beyond the core's TOKENS (bound in src/container.ts). */
export const WEB_TOKENS = {
  settings: token<Settings>('settings'),
  sessions: token<WebSessions>('sessions'),
  /** Sign-in failures of the console and the portal, per address and per (address, email): never per email alone. */
  signInThrottle: token<FailureThrottle>('signInThrottle'),
} as const;
