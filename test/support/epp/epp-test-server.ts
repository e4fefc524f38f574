import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { encodeFrame, FrameReader } from '../../../plugins/epp/src/framing';
import {
  child,
  childText,
  el,
  NS,
  parseXml,
  renderEpp,
  type XmlElement,
  type XmlNode,
} from '../../../plugins/epp/src/xml';
import type { TestCertificates } from './certificates';
import {
  RESULT_MESSAGES,
  TestRegistry,
  type Answer,
  type SessionState,
  type TestRegistryOptions,
} from './test-registry';
import { validateEpp } from './xml-schema';

/**
 * A fault the server injects into the next matching command (`domain:create`, `login`, `hello`,
 * `poll`, …):
 * - `drop`: close the connection without carrying out the command;
 * - `drop-after`: carry it out, then close without answering (the answer is lost);
 * - `slow`: carry it out and answer after `delayMs`;
 * - 2400 / 2500 / 2502: answer with that code without carrying it out (250x also closes).
 */
export interface Fault {
  readonly command: string;
  readonly action: 'drop' | 'drop-after' | 'slow' | 2400 | 2500 | 2502;
  readonly delayMs?: number;
  /** How many matching commands it hits. Default 1. */
  times?: number;
}

export interface ReceivedCommand {
  readonly clientId?: string;
  readonly command: string;
  readonly clTRID?: string;
  readonly code: number;
}

export interface EppTestServer {
  readonly port: number;
  readonly registry: TestRegistry;
  /** Every command handled, in order (greetings for hello included as `hello`). */
  readonly received: ReceivedCommand[];
  /**
   * What broke the protocol: a frame either side sent that failed schema validation, or a clTRID
   * the client used before. A correct run leaves this empty.
   */
  readonly protocolErrors: string[];
  readonly stats: { connections: number; logins: number; logouts: number; hellos: number; idleDrops: number };
  inject(fault: Fault): void;
  /** Closes every open connection (a network failure from the client's point of view). */
  dropAllConnections(): void;
  /** Stops accepting connections (the registry is down) until `start()`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
  commands(name: string): ReceivedCommand[];
}

export interface EppTestServerOptions extends TestRegistryOptions {
  readonly certificates: TestCertificates;
  /** Validate every frame in and out against the RFC schemas. Default true. */
  readonly validate?: boolean;
  readonly maxSessionsPerClient?: number;
  /** Close a session that sent nothing for this long, as registries do (often after 120 s). Default: never. */
  readonly idleTimeoutMs?: number;
}

/**
 * An EPP server on loopback for tests: TLS with client-certificate authentication, RFC 5734
 * framing, the greeting, sessions and every command the plugin uses, served by a stateful
 * `TestRegistry`. Each incoming frame is checked against the RFC schemas (an invalid one gets
 * 2001 and is recorded), and so is each answer. As registries do, a clTRID is accepted once in
 * the server's life: a repeat gets no answer and the connection is closed.
 */
export async function startEppTestServer(options: EppTestServerOptions): Promise<EppTestServer> {
  const registry = new TestRegistry(options);
  const received: ReceivedCommand[] = [];
  const protocolErrors: string[] = [];
  const usedClTRIDs = new Set<string>();
  // Answers are validated beside the conversation (their problems are still recorded): awaiting each
  // would double the time every test spends in the validator. close() waits for the last of them.
  const answerChecks = new Set<Promise<void>>();
  const faults: Fault[] = [];
  const sockets = new Set<tls.TLSSocket>();
  const stats = { connections: 0, logins: 0, logouts: 0, hellos: 0, idleDrops: 0 };
  const isValidating = options.validate ?? true;
  const sessionsByClient = new Map<string, number>();
  let svSerial = 1;

  const greeting = (): string =>
    renderEpp(
      el(
        'greeting',
        el('svID', 'EPP Test Registry'),
        el('svDate', registry.now().toISOString()),
        el(
          'svcMenu',
          el('version', '1.0'),
          el('lang', 'en'),
          registry.objectUris.map((uri) => el('objURI', uri)),
          registry.extensions.length
            ? el(
                'svcExtension',
                registry.extensions.map((uri) => el('extURI', uri)),
              )
            : null,
        ),
        el(
          'dcp',
          el('access', el('all')),
          el(
            'statement',
            el('purpose', el('admin'), el('prov')),
            el('recipient', el('ours'), el('public')),
            el('retention', el('stated')),
          ),
        ),
      ),
    );

  const respond = (answer: Answer, clTRID: string | undefined): string =>
    renderEpp(
      el(
        'response',
        el(
          'result',
          { code: answer.code },
          el('msg', RESULT_MESSAGES[answer.code] ?? 'Unknown result'),
          answer.reason ? el('extValue', el('value', answer.reason.value), el('reason', answer.reason.text)) : null,
        ),
        answer.msgQ
          ? el(
              'msgQ',
              { count: answer.msgQ.count, id: answer.msgQ.id },
              answer.msgQ.date ? el('qDate', answer.msgQ.date.toISOString()) : null,
              answer.msgQ.text ? el('msg', answer.msgQ.text) : null,
            )
          : null,
        answer.resData ? el('resData', answer.resData) : null,
        answer.extension?.length ? el('extension', answer.extension as XmlNode[]) : null,
        el('trID', clTRID ? el('clTRID', clTRID) : null, el('svTRID', `SV-${svSerial++}`)),
      ),
    );

  const takeFault = (command: string): Fault | undefined => {
    const i = faults.findIndex((f) => f.command === command);
    if (i < 0) return undefined;
    const fault = faults[i]!;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) faults.splice(i, 1);
    return fault;
  };

  const server = tls.createServer(
    {
      key: options.certificates.serverKey,
      cert: options.certificates.serverCert,
      ca: [options.certificates.ca],
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
    },
    (socket) => {
      stats.connections++;
      sockets.add(socket);
      const session: SessionState = { objects: new Set(), extensions: new Set() };
      const reader = new FrameReader();
      let queue = Promise.resolve();
      let isOpen = true;
      let idleTimer: NodeJS.Timeout | undefined;
      const watchIdle = () => {
        if (options.idleTimeoutMs === undefined) return;
        clearTimeout(idleTimer);
        idleTimer = setTimeout(() => {
          stats.idleDrops++;
          close();
        }, options.idleTimeoutMs);
      };
      const send = async (xml: string) => {
        if (isValidating) {
          const check = validateEpp(xml).then((problem) => {
            if (problem) protocolErrors.push(`server sent an invalid frame: ${problem}\n${xml}`);
          });
          answerChecks.add(check);
          void check.finally(() => answerChecks.delete(check));
        }
        if (isOpen) socket.write(encodeFrame(xml));
        // Idle is the time the server waits for the client, from its last answer to the next frame.
        watchIdle();
      };
      const close = () => {
        isOpen = false;
        clearTimeout(idleTimer);
        socket.end();
      };
      socket.on('close', () => {
        isOpen = false;
        clearTimeout(idleTimer);
        sockets.delete(socket);
        if (session.clientId) sessionsByClient.set(session.clientId, (sessionsByClient.get(session.clientId) ?? 1) - 1);
      });
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        clearTimeout(idleTimer);
        let frames: string[];
        try {
          frames = reader.push(chunk);
        } catch {
          socket.destroy();
          return;
        }
        for (const xml of frames)
          queue = queue
            .then(() => handle(xml))
            .catch((error: unknown) => {
              protocolErrors.push(`server failed: ${String(error)}`);
              socket.destroy();
            });
      });
      void send(greeting());

      async function handle(xml: string): Promise<void> {
        if (!isOpen) return;
        if (isValidating) {
          const problem = await validateEpp(xml);
          if (problem) {
            protocolErrors.push(`client sent an invalid frame: ${problem}\n${xml}`);
            received.push({ clientId: session.clientId, command: 'invalid', code: 2001 });
            await send(
              respond(
                {
                  code: 2001,
                  reason: { value: el('clTRID', 'invalid'), text: problem.slice(0, 200).replace(/\s+/g, ' ') },
                },
                undefined,
              ),
            );
            return;
          }
        }
        const root = parseXml(xml);
        if (child(root, NS.epp, 'hello')) {
          stats.hellos++;
          received.push({ clientId: session.clientId, command: 'hello', code: 0 });
          const fault = takeFault('hello');
          if (fault?.action === 'drop') return void socket.destroy();
          await send(greeting());
          return;
        }
        const cmd = child(root, NS.epp, 'command')!;
        const clTRID = childText(cmd, NS.epp, 'clTRID');
        const verbEl = cmd.children.find((c) => c.ns === NS.epp && c.name !== 'extension' && c.name !== 'clTRID')!;
        const isObjectCommand = ['check', 'create', 'delete', 'info', 'renew', 'transfer', 'update'].includes(
          verbEl.name,
        );
        const object = isObjectCommand ? verbEl.children[0] : undefined;
        const name = object ? `${prefixOf(object.ns)}:${verbEl.name}` : verbEl.name;
        if (clTRID !== undefined) {
          if (usedClTRIDs.has(clTRID)) {
            // What a registry did: no answer, the connection closed.
            protocolErrors.push(`client reused clTRID ${clTRID} (${name})`);
            received.push({ clientId: session.clientId, command: name, clTRID, code: 0 });
            socket.destroy();
            return;
          }
          usedClTRIDs.add(clTRID);
        }
        const fault = takeFault(name);
        if (fault?.action === 'drop') {
          received.push({ clientId: session.clientId, command: name, clTRID, code: 0 });
          socket.destroy();
          return;
        }
        if (fault && typeof fault.action === 'number') {
          received.push({ clientId: session.clientId, command: name, clTRID, code: fault.action });
          await send(respond({ code: fault.action }, clTRID));
          if (fault.action >= 2500) close();
          return;
        }
        const answer = execute(verbEl, object, child(cmd, NS.epp, 'extension'), clTRID);
        received.push({ clientId: session.clientId, command: name, clTRID, code: answer.code });
        if (fault?.action === 'drop-after') {
          socket.destroy();
          return;
        }
        if (fault?.action === 'slow') await new Promise((r) => setTimeout(r, fault.delayMs ?? 1000));
        await send(respond(answer, clTRID));
        if (answer.code === 1500 || answer.code >= 2500) close();
      }

      function execute(
        verb: XmlElement,
        object: XmlElement | undefined,
        extension: XmlElement | undefined,
        clTRID: string | undefined,
      ): Answer {
        if (verb.name === 'login') {
          const clientId = childText(verb, NS.epp, 'clID') ?? '';
          if ((sessionsByClient.get(clientId) ?? 0) >= (options.maxSessionsPerClient ?? 4)) return { code: 2502 };
          const answer = registry.login(session, verb, extension);
          if (answer.code === 1000) {
            stats.logins++;
            sessionsByClient.set(clientId, (sessionsByClient.get(clientId) ?? 0) + 1);
          }
          return answer;
        }
        if (!session.clientId)
          return { code: 2002, reason: { value: el('clTRID', clTRID ?? '-'), text: 'Log in first' } };
        if (verb.name === 'logout') {
          stats.logouts++;
          return { code: 1500 };
        }
        if (verb.name === 'poll') return registry.poll(session, verb);
        if (!object) return { code: 2001 };
        return registry.execute(session, verb.name, object, extension, verb.attrs.op, clTRID);
      }
    },
  );

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    registry,
    received,
    protocolErrors,
    stats,
    inject: (fault) => {
      faults.push({ ...fault });
    },
    dropAllConnections: () => {
      for (const s of sockets) s.destroy();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
    start: () => listen(port),
    close: async () => {
      await new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      });
      while (answerChecks.size > 0) await Promise.allSettled([...answerChecks]);
    },
    commands: (name) => received.filter((r) => r.command === name),
  };
}

function prefixOf(ns: string): string {
  return Object.entries(NS).find(([, uri]) => uri === ns)?.[0] ?? 'unknown';
}
