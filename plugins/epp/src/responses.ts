import { child, childText, children, deepText, NS, parseXml, type XmlElement } from './xml';

/** What a server offers in its greeting (RFC 5730 section 2.4). */
export interface Greeting {
  readonly serverId: string;
  readonly serverDate: string;
  readonly versions: readonly string[];
  readonly languages: readonly string[];
  readonly objectUris: readonly string[];
  readonly extensionUris: readonly string[];
}

export interface EppResult {
  readonly code: number;
  readonly message: string;
  /** The server's reasons: `<value>` contents and `<extValue><reason>` texts. */
  readonly reasons: readonly string[];
}

export interface MessageQueue {
  readonly count: number;
  readonly id: string;
  readonly date?: string;
  readonly message?: string;
}

export interface EppResponse {
  /** The first result's code; the one that decides the outcome. */
  readonly code: number;
  readonly message: string;
  readonly results: readonly EppResult[];
  readonly queue?: MessageQueue;
  readonly resData?: XmlElement;
  readonly extension?: XmlElement;
  readonly clientTransactionId?: string;
  readonly serverTransactionId?: string;
}

export type ParsedFrame =
  | { readonly kind: 'greeting'; readonly greeting: Greeting }
  | { readonly kind: 'response'; readonly response: EppResponse };

/** Thrown for a frame that is not a greeting or response we can read: a protocol fault, never an outcome. */
export class EppProtocolError extends Error {}

export function parseServerFrame(xml: string): ParsedFrame {
  let root: XmlElement;
  try {
    root = parseXml(xml);
  } catch (error) {
    throw new EppProtocolError(
      `the server sent malformed XML: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (root.ns !== NS.epp || root.name !== 'epp')
    throw new EppProtocolError('the server sent a frame whose root is not <epp>');
  const greeting = child(root, NS.epp, 'greeting');
  if (greeting) return { kind: 'greeting', greeting: readGreeting(greeting) };
  const response = child(root, NS.epp, 'response');
  if (response) return { kind: 'response', response: readResponse(response) };
  throw new EppProtocolError('the server sent an <epp> frame that is neither a greeting nor a response');
}

function readGreeting(g: XmlElement): Greeting {
  const menu = child(g, NS.epp, 'svcMenu');
  const texts = (parent: XmlElement | undefined, name: string) =>
    children(parent, NS.epp, name)
      .map((e) => e.text.trim())
      .filter(Boolean);
  return {
    serverId: childText(g, NS.epp, 'svID') ?? '',
    serverDate: childText(g, NS.epp, 'svDate') ?? '',
    versions: texts(menu, 'version'),
    languages: texts(menu, 'lang'),
    objectUris: texts(menu, 'objURI'),
    extensionUris: texts(child(menu, NS.epp, 'svcExtension'), 'extURI'),
  };
}

function readResponse(r: XmlElement): EppResponse {
  const results = children(r, NS.epp, 'result').map((res): EppResult => {
    const code = Number(res.attrs.code);
    if (!Number.isInteger(code) || code < 1000 || code > 2999)
      throw new EppProtocolError(`the server sent the result code "${res.attrs.code}"`);
    const reasons = [
      ...children(res, NS.epp, 'value').map(deepText),
      ...children(res, NS.epp, 'extValue').map((v) => childText(v, NS.epp, 'reason') ?? ''),
    ].filter(Boolean);
    return { code, message: (childText(res, NS.epp, 'msg') ?? '').replace(/\s+/g, ' '), reasons };
  });
  if (results.length === 0) throw new EppProtocolError('the server sent a response without a result');
  const q = child(r, NS.epp, 'msgQ');
  const trId = child(r, NS.epp, 'trID');
  return {
    code: results[0]!.code,
    message: results[0]!.message,
    results,
    queue: q
      ? {
          count: Number(q.attrs.count ?? 0),
          id: q.attrs.id ?? '',
          date: childText(q, NS.epp, 'qDate'),
          message: child(q, NS.epp, 'msg') ? deepText(child(q, NS.epp, 'msg')!) : undefined,
        }
      : undefined,
    resData: child(r, NS.epp, 'resData'),
    extension: child(r, NS.epp, 'extension'),
    clientTransactionId: childText(trId, NS.epp, 'clTRID'),
    serverTransactionId: childText(trId, NS.epp, 'svTRID'),
  };
}

/** The server's words for a failure: its message and reasons, as one line. */
export function describeResult(response: EppResponse): string {
  const reasons = response.results.flatMap((r) => r.reasons);
  const text = [response.message, ...reasons].filter(Boolean).join(': ');
  return `${text || 'no message'} (EPP ${response.code})`;
}
