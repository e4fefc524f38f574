import {
  DOMImplementation,
  DOMParser,
  XMLSerializer,
  type Element as DomElement,
  type Node as DomNode,
} from '@xmldom/xmldom';

/** The namespaces the plugin speaks, by the prefix it writes them with. */
export const NS = {
  epp: 'urn:ietf:params:xml:ns:epp-1.0',
  domain: 'urn:ietf:params:xml:ns:domain-1.0',
  host: 'urn:ietf:params:xml:ns:host-1.0',
  contact: 'urn:ietf:params:xml:ns:contact-1.0',
  secDNS: 'urn:ietf:params:xml:ns:secDNS-1.1',
  rgp: 'urn:ietf:params:xml:ns:rgp-1.0',
  loginSec: 'urn:ietf:params:xml:ns:epp:loginSec-1.0',
} as const;

export type Prefix = keyof typeof NS;

/** An element to build: `el('domain:name', 'example.com')`, `el('domain:period', { unit: 'y' }, '1')`. */
export interface XmlNode {
  readonly qname: string;
  /** Set by `elDefault`: the element's namespace, written as the default one (no prefix). */
  readonly ns?: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly (XmlNode | string)[];
}

export type XmlChild = XmlNode | string | number | null | undefined | false | readonly XmlChild[];
type Attrs = Readonly<Record<string, string | number | boolean | undefined>>;

/** Thrown when a value cannot be put into an EPP frame (characters XML forbids); nothing was sent. */
export class XmlValueError extends Error {}

const isNode = (v: unknown): v is XmlNode => typeof v === 'object' && v !== null && 'qname' in v && 'children' in v;

export function el(qname: string, attrsOrChild?: Attrs | XmlChild, ...children: XmlChild[]): XmlNode {
  const hasAttrs =
    typeof attrsOrChild === 'object' && attrsOrChild !== null && !Array.isArray(attrsOrChild) && !isNode(attrsOrChild);
  const attrs: Record<string, string> = {};
  if (hasAttrs) {
    for (const [k, v] of Object.entries(attrsOrChild as Attrs)) if (v !== undefined) attrs[k] = String(v);
  }
  const all = hasAttrs ? children : [attrsOrChild as XmlChild, ...children];
  const flat: (XmlNode | string)[] = [];
  const add = (c: XmlChild): void => {
    if (c === null || c === undefined || c === false) return;
    if (Array.isArray(c)) {
      (c as readonly XmlChild[]).forEach(add);
      return;
    }
    flat.push(typeof c === 'number' ? String(c) : (c as XmlNode | string));
  };
  all.forEach(add);
  return { qname, attrs, children: flat };
}

/**
 * An element of the namespace `prefix` names, written without a prefix: its namespace is declared
 * as the default one (`<loginSec xmlns="…"><pw>…</pw></loginSec>`). Equally valid for the schema,
 * and read by registries that look for unprefixed children too.
 */
export function elDefault(prefix: Prefix, name: string, ...children: XmlChild[]): XmlNode {
  return { ...el(name, ...children), ns: NS[prefix] };
}

// XML 1.0 "Char": anything else cannot be carried, escaped or not.
const FORBIDDEN_CHARS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

function checkText(value: string, where: string): string {
  if (FORBIDDEN_CHARS.test(value)) throw new XmlValueError(`${where} contains a character that cannot be sent in XML`);
  return value;
}

function nsOf(qname: string): string {
  const colon = qname.indexOf(':');
  if (colon < 0) return NS.epp;
  const ns = NS[qname.slice(0, colon) as Prefix];
  if (!ns) throw new Error(`unknown namespace prefix in ${qname}`);
  return ns;
}

/**
 * Serialises an `<epp>` frame. Every value goes through the DOM as a text node or attribute,
 * so the serializer escapes it; nothing untrusted is ever concatenated into markup.
 */
export function renderEpp(child: XmlNode): string {
  const doc = new DOMImplementation().createDocument(NS.epp, 'epp', null);
  const build = (node: XmlNode): DomElement => {
    const element = doc.createElementNS(node.ns ?? nsOf(node.qname), node.qname);
    for (const [name, value] of Object.entries(node.attrs))
      element.setAttribute(name, checkText(value, `attribute ${name}`));
    for (const c of node.children) {
      element.appendChild(typeof c === 'string' ? doc.createTextNode(checkText(c, node.qname)) : build(c));
    }
    return element;
  };
  doc.documentElement!.appendChild(build(child));
  return `<?xml version="1.0" encoding="UTF-8" standalone="no"?>${new XMLSerializer().serializeToString(doc)}`;
}

/** A parsed element with its namespace resolved, whatever prefix the peer chose. */
export interface XmlElement {
  readonly ns: string;
  readonly name: string;
  /** The name as written, with the peer's prefix if it used one (`loginSec:pw`, or `pw` under a default namespace). */
  readonly qname: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly XmlElement[];
  /** The element's own text (direct text and CDATA children), untrimmed. */
  readonly text: string;
}

export class XmlParseError extends Error {}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_NODE = 4;

/** Parses one frame. Refuses DTDs (EPP never has one; they are the door to entity attacks) and anything not well-formed. */
export function parseXml(text: string): XmlElement {
  if (/<!DOCTYPE/i.test(text)) throw new XmlParseError('frames with a DOCTYPE are refused');
  let root: DomElement | null;
  try {
    const doc = new DOMParser({
      onError: (level: string, message: string) => {
        if (level !== 'warning') throw new XmlParseError(message);
      },
    }).parseFromString(text, 'text/xml');
    root = doc.documentElement;
  } catch (error) {
    throw error instanceof XmlParseError
      ? error
      : new XmlParseError(error instanceof Error ? error.message : String(error));
  }
  if (!root) throw new XmlParseError('no root element');
  return convert(root);
}

function convert(element: DomElement): XmlElement {
  const attrs: Record<string, string> = {};
  for (let i = 0; i < element.attributes.length; i++) {
    const a = element.attributes.item(i)!;
    if (a.name === 'xmlns' || a.name.startsWith('xmlns:')) continue;
    attrs[a.localName ?? a.name] = a.value;
  }
  const children: XmlElement[] = [];
  let text = '';
  for (let n: DomNode | null = element.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === ELEMENT_NODE) children.push(convert(n as DomElement));
    else if (n.nodeType === TEXT_NODE || n.nodeType === CDATA_NODE) text += n.nodeValue ?? '';
  }
  return {
    ns: element.namespaceURI ?? '',
    name: element.localName ?? element.nodeName,
    qname: element.nodeName,
    attrs,
    children,
    text,
  };
}

/** Navigation over parsed elements by namespace and local name. */
export function child(parent: XmlElement | undefined, ns: string, name: string): XmlElement | undefined {
  return parent?.children.find((c) => c.ns === ns && c.name === name);
}

export function children(parent: XmlElement | undefined, ns: string, name: string): XmlElement[] {
  return parent ? parent.children.filter((c) => c.ns === ns && c.name === name) : [];
}

/** The trimmed text of a child element, or undefined when absent. */
export function childText(parent: XmlElement | undefined, ns: string, name: string): string | undefined {
  const c = child(parent, ns, name);
  return c === undefined ? undefined : c.text.trim();
}

/** The element and its descendants' text, whitespace-collapsed (for human-readable messages). */
export function deepText(element: XmlElement): string {
  return [element.text, ...element.children.map(deepText)].join(' ').replace(/\s+/g, ' ').trim();
}
