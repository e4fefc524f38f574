import { EppConnection } from './connection';
import { loginSettings, tlsSettings } from './create-epp-registrar';
import { loginFrame, logoutFrame, PLAIN_PASSWORD_LENGTH } from './frames';
import type { EppOptions } from './options';
import { describeResult, EppProtocolError } from './responses';
import { EppConfigurationError, loginExtensions, loginObjects, passwordProblem } from './session-pool';
import { TransactionIds } from './transaction-ids';

/**
 * The operator's one-time change of the registry password (RFC 5730 `<newPW>`): one session of
 * its own logs in with the configured password and the new one, then logs out. Normal logins
 * never send `<newPW>`: a registry that changed the password at the first login refuses the
 * old/new pair on every later one. A new password over 16 characters goes through loginSec
 * (RFC 8807), and only to a registry that offers it. Throws, naming the reason, when nothing changed.
 */
export async function changeRegistryPassword(
  options: EppOptions,
  newPassword: string,
  signal: AbortSignal = AbortSignal.timeout(options.connectTimeoutMs + options.commandTimeoutMs),
): Promise<{ message: string }> {
  const { min, max } = PLAIN_PASSWORD_LENGTH;
  if (newPassword.length < min)
    throw new EppConfigurationError(`the new password must have at least ${min} characters`);
  if (newPassword === options.password)
    throw new EppConfigurationError('the new password is the configured one; choose another');
  const ids = new TransactionIds();
  const { connection, greeting } = await EppConnection.open(tlsSettings(options), signal);
  try {
    const current = passwordProblem(options.password, greeting, 'the configured password');
    if (current) throw new EppConfigurationError(current);
    const wanted = passwordProblem(newPassword, greeting, 'the new password');
    if (wanted) throw new EppConfigurationError(`${wanted}: choose one of ${min} to ${max} characters`);
    const login = loginSettings(options);
    const answer = await connection.request(
      loginFrame(
        {
          clientId: login.clientId,
          password: login.password,
          newPassword,
          language: login.language,
          objectUris: loginObjects(login, greeting),
          extensionUris: loginExtensions(login.extensions, greeting, [login.password, newPassword]),
        },
        ids.next('epp-password'),
      ),
      signal,
    );
    if (answer.kind !== 'response') throw new EppProtocolError('the server answered the login with a greeting');
    if (answer.response.code !== 1000)
      throw new Error(
        `the registry refused the password change: ${describeResult(answer.response)}; keep the configured password`,
      );
    try {
      await connection.request(logoutFrame(ids.next('epp-logout')), signal);
    } catch {
      // The change is made at login; a lost logout only leaves a session for the registry to close.
    }
    return {
      message:
        'the registry accepted the new password: set plugins.epp.password (or the variable named by passwordEnv) ' +
        'to it now; the old one no longer logs in',
    };
  } finally {
    connection.destroy();
  }
}
