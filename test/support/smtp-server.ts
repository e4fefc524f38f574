import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Mail {
  readonly to: string[];
  readonly raw: string;
}

/**
 * A real SMTP server in-process (no TLS, no authentication): keeps every mail it is given, and
 * refuses the next `refuse.next` mails with a temporary failure (451), as a busy mail server does.
 */
export async function smtpServer() {
  const mails: Mail[] = [];
  const refuse = { next: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        raw += chunk;
      });
      stream.on('end', () => {
        if (refuse.next > 0) {
          refuse.next--;
          return callback(Object.assign(new Error('mailbox busy, try again later'), { responseCode: 451 }));
        }
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    mails,
    refuse,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The probe's value once it has one (neither undefined nor false), polled every 20 ms. */
export async function eventually<T>(probe: () => T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
