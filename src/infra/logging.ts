import pino from 'pino';
import type { Logger } from '../core/shared/logger';

/** Paths never written to a log, wherever they appear. */
export const REDACTED_PATHS = [
  'token', '*.token', 'headers.token', '*.headers.token',
  'apiKey', '*.apiKey', 'sealedApiKey', '*.sealedApiKey',
  'masterKey', '*.masterKey', 'password', '*.password',
  'eppcode', '*.eppcode', 'authCode', '*.authCode',
  'contacts', '*.contacts',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'domain-reseller' } }, destination);
}
