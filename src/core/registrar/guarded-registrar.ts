/**
 * The one door to a registrar plugin. Every loaded plugin is wrapped once in a guarded registrar
 * with the plugin's own capability-shaped surface, minus the call context: `register(input)`,
 * `nameservers?.get({ domain })`, and so on, each taking an optional transaction id. Every call
 * through it, in this order:
 *
 * 1. is forwarded to the real plugin object (so a class with `#private` fields keeps its `this`);
 *    a plugin that is installed but not configured fails every call with the loader's reason;
 * 2. runs under the registrar deadline: at `timeoutMs` its signal aborts and the platform stops
 *    waiting, whatever the plugin does, so a registrar never holds a request or money hostage;
 * 3. is observed: the `RegistrarCallObserver` hears its plugin, capability, method, outcome and
 *    duration (the Prometheus metrics implement it);
 * 4. has its answer checked, as untrusted input, against the one table of answer schemas
 *    (`ANSWERS` in registrar-answers.ts, which the conformance kit uses too); a batch answer
 *    (availability, suggestions, prices) is checked element by element, a bad element dropped.
 *
 * It answers what the plugin answered (a `RegistrarOutcome` stays an outcome: a definite "no" is
 * a value) or throws a `RegistrarFault`: `timeout`, `error` (the plugin threw) or `malformed`
 * (the answer cannot be used). Faults carry no HTTP meaning: the gateway maps them for domain
 * management, orders read any fault as "unknown", search reads it as an unknown availability.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Logger } from '../common/logger';
import {
  CAPABILITY_METHODS,
  CAPABILITY_NAMES,
  REQUIRED_METHODS,
  type CallContext,
  type CapabilityName,
  type RegistrarCapabilities,
  type RegistrarPlugin,
} from './plugin';
import { ANSWERS, type AnswerOf, type ListAnswer, cleanMessage } from './registrar-answers';
import type { InstalledRegistrar, RegistrarDirectory } from './registrar-directory';

// ---- faults ----

/** How a call failed to give a usable answer. */
export type RegistrarFaultKind = 'timeout' | 'error' | 'malformed';

const FAULT = Symbol.for('reseller/RegistrarFault');

/** A registrar call that ended without a usable answer. Whether it happened at the registry is not known. */
export class RegistrarFault extends Error {
  readonly [FAULT] = true;
  constructor(
    readonly kind: RegistrarFaultKind,
    readonly registrarId: string,
    /** `register`, `nameservers.get`, … */
    readonly operation: string,
    message: string,
    /** The plugin's own words (`error`), or what was wrong with the answer (`malformed`), one bounded line. */
    readonly detail: string,
    options?: ErrorOptions & { readonly received?: string },
  ) {
    super(message, options);
    this.name = 'RegistrarFault';
    this.received = options?.received;
  }
  /** `malformed`: a short preview of the answer as received. */
  readonly received: string | undefined;
}

/** Recognised by brand, like `DomainError`. */
export function isRegistrarFault(error: unknown): error is RegistrarFault {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[FAULT] === true;
}

// ---- observation ----

/**
 * How one registrar call ended: `ok`; a definite "no" the plugin returned (`refused`,
 * `unavailable`, `pending`); cut off at the deadline (`timeout`); a fault (`error`); or an answer
 * that cannot be used (`malformed`).
 */
export type RegistrarCallOutcome = 'ok' | 'refused' | 'unavailable' | 'pending' | 'timeout' | 'error' | 'malformed';

export interface RegistrarCall {
  readonly plugin: string;
  /** The capability (`domainSync`), or the required method (`register`, `checkAvailability`). */
  readonly capability: string;
  /** The method within the capability (`sync`); the same as `capability` for a required method. */
  readonly operation: string;
  readonly outcome: RegistrarCallOutcome;
  readonly seconds: number;
}

/** Told about every registrar call the platform makes (metrics implement it; the core never imports them). */
export interface RegistrarCallObserver {
  registrarCall(call: RegistrarCall): void;
}

export const NO_REGISTRAR_CALL_OBSERVER: RegistrarCallObserver = { registrarCall: () => undefined };

// ---- the guarded surface ----

export interface CallOptions {
  /** Unique per call; default a new UUID. Orders pass the order id (an EPP clTRID, an upstream idempotency key). */
  readonly transactionId?: string;
}

type Inputs<F> = F extends (...args: infer A) => Promise<unknown>
  ? A extends [...infer I, CallContext]
    ? I
    : never
  : never;
type Guarded<F, S> = (...args: [...Inputs<F>, CallOptions?]) => Promise<AnswerOf<S>>;
type Group<C extends CapabilityName> = NonNullable<RegistrarCapabilities[C]>;

/** A capability as the platform calls it: the plugin's methods without the context, answers checked. */
export type GuardedCapability<C extends CapabilityName> = {
  readonly [M in keyof (typeof ANSWERS)[C] & keyof Group<C>]: Guarded<Group<C>[M], (typeof ANSWERS)[C][M]>;
};

export type GuardedCapabilities = { readonly [C in CapabilityName]?: GuardedCapability<C> };

export interface GuardedRegistrar extends GuardedCapabilities {
  readonly id: string;
  /** The capabilities in use: declared in the plugin's manifest, minus those the operator switched off. */
  readonly capabilities: readonly CapabilityName[];
  /** Checked name by name: a malformed entry is dropped; a name left out is the caller's to treat as unknown. */
  readonly checkAvailability: Guarded<RegistrarPlugin['checkAvailability'], typeof ANSWERS.checkAvailability>;
  readonly register: Guarded<RegistrarPlugin['register'], typeof ANSWERS.register>;
  readonly renew: Guarded<RegistrarPlugin['renew'], typeof ANSWERS.renew>;
}

/** The installed registrars, each behind its guard. */
export interface GuardedRegistrars {
  has(id: string): boolean;
  ids(): string[];
  /** Throws (`notInstalled`) when no plugin with this id is installed. */
  get(id: string): GuardedRegistrar;
  /** Whether the plugin with this id failed to load and is disabled (then `has` is false). */
  isDisabled(id: string): boolean;
}

export interface GuardOptions {
  /** REGISTRAR_TIMEOUT_MS. */
  readonly timeoutMs: number;
  readonly logger: Logger;
  readonly observer?: RegistrarCallObserver;
  /** For the conformance kit: a malformed element of a batch answer is a fault instead of being dropped. */
  readonly strict?: boolean;
}

/** Wraps every installed plugin once (per loaded plugin object), on first use. */
export function guardRegistrars(directory: RegistrarDirectory, options: GuardOptions): GuardedRegistrars {
  const guarded = new WeakMap<InstalledRegistrar, GuardedRegistrar>();
  return {
    has: (id) => directory.has(id),
    ids: () => directory.ids(),
    isDisabled: (id) => directory.failure?.(id) !== undefined,
    get(id) {
      if (!directory.has(id)) throw new Error(notInstalled(id));
      const installed = directory.installed(id);
      let registrar = guarded.get(installed);
      if (!registrar) {
        registrar = guardRegistrar(installed, options);
        guarded.set(installed, registrar);
      }
      return registrar;
    },
  };
}

/** What a reseller is told of a registrar whose plugin failed to load (the operator's log has the cause). */
export const disabledRegistrar = (id: string) =>
  `Registrar ${id} is disabled: its plugin failed to load, and the operator has been told; try again later`;

export const notInstalled = (id: string) =>
  `Registrar ${id} is not installed on this platform; the operator must install it or change the TLD's registrar`;

/** Methods that take no input before their context. */
const WITHOUT_INPUT: ReadonlySet<string> = new Set(['tldPricing.prices']);

export function guardRegistrar(installed: InstalledRegistrar, options: GuardOptions): GuardedRegistrar {
  const surface: Record<string, unknown> = { id: installed.id, capabilities: installed.capabilities };
  for (const method of REQUIRED_METHODS) {
    surface[method] = guardMethod(installed, undefined, method, ANSWERS[method], options);
  }
  for (const capability of CAPABILITY_NAMES) {
    if (!installed.capabilities.includes(capability)) continue;
    const group: Record<string, unknown> = {};
    for (const method of CAPABILITY_METHODS[capability] as readonly string[]) {
      const schema = (ANSWERS[capability] as Record<string, z.ZodType | ListAnswer>)[method]!;
      group[method] = guardMethod(installed, capability, method, schema, options);
    }
    surface[capability] = Object.freeze(group);
  }
  return Object.freeze(surface) as unknown as GuardedRegistrar;
}

function guardMethod(
  installed: InstalledRegistrar,
  /** Undefined for a method of the required part. */
  capability: CapabilityName | undefined,
  method: string,
  schema: z.ZodType | ListAnswer,
  options: GuardOptions,
): (...args: unknown[]) => Promise<unknown> {
  const id = installed.id;
  const operation = capability ? `${capability}.${method}` : method;
  const inputCount = WITHOUT_INPUT.has(operation) ? 0 : 1;
  return async (...args: unknown[]) => {
    const inputs = args.slice(0, inputCount);
    const { transactionId = randomUUID() } = (args[inputCount] ?? {}) as CallOptions;
    const started = performance.now();
    const observe = (outcome: RegistrarCallOutcome) =>
      options.observer?.registrarCall({
        plugin: id,
        capability: capability ?? method,
        operation: method,
        outcome,
        seconds: (performance.now() - started) / 1000,
      });

    let answer: unknown;
    try {
      answer = await underDeadline(
        id,
        options.timeoutMs,
        operation,
        (ctx) => {
          const plugin = installed.plugin;
          if (!plugin) throw new Error(installed.notConfigured ?? `the ${id} registrar plugin is not configured`);
          // Called on the real object (the plugin, or its capability group), so `this` is theirs.
          const target = (capability ? plugin[capability] : plugin) as unknown as Record<
            string,
            (...a: unknown[]) => unknown
          >;
          return target[method]!(...inputs, ctx);
        },
        transactionId,
      );
    } catch (error) {
      if (isRegistrarFault(error)) {
        observe('timeout');
        throw error;
      }
      observe('error');
      const detail = cleanMessage(error instanceof Error ? error.message : error);
      throw new RegistrarFault('error', id, operation, `Registrar ${id} failed: ${detail}`, detail, { cause: error });
    }

    let checked: unknown;
    try {
      checked = isList(schema) ? checkList(id, operation, schema, answer, options) : checkOne(schema, answer);
    } catch (problem) {
      observe('malformed');
      const detail = String((problem as Error).message);
      options.logger.warn({ registrar: id, operation, problem: detail }, 'registrar answer rejected');
      throw new RegistrarFault(
        'malformed',
        id,
        operation,
        `Registrar ${id} gave an answer to ${operation} that cannot be used`,
        detail,
        { received: preview(answer) },
      );
    }
    observe(outcomeOf(checked));
    return checked;
  };
}

/** Runs one call with a signal that aborts at the deadline, and stops waiting at that moment. */
async function underDeadline<T>(
  registrarId: string,
  timeoutMs: number,
  operation: string,
  call: (ctx: CallContext) => T | Promise<T>,
  transactionId: string,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const message = `Registrar ${registrarId} did not answer within ${timeoutMs} ms`;
      const fault = new RegistrarFault('timeout', registrarId, operation, message, message);
      controller.abort(fault);
      reject(fault);
    }, timeoutMs);
  });
  try {
    // A synchronous throw becomes a rejection here, like any other fault.
    return await Promise.race([
      Promise.resolve().then(() => call({ signal: controller.signal, transactionId })),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const isList = (schema: z.ZodType | ListAnswer): schema is ListAnswer => 'element' in schema;

function checkOne(schema: z.ZodType, answer: unknown): unknown {
  const parsed = schema.safeParse(answer);
  if (!parsed.success) throw new Error(issuesOf(parsed.error));
  return parsed.data;
}

/** Element by element: a bad element is dropped and logged (a fault in strict mode). */
function checkList(id: string, operation: string, schema: ListAnswer, answer: unknown, options: GuardOptions) {
  if (!Array.isArray(answer)) throw new Error('answer: expected a list');
  if (answer.length > schema.max) throw new Error(`answer: more than ${schema.max} elements`);
  let kept: unknown[] = [];
  const dropped: string[] = [];
  answer.forEach((element, index) => {
    const parsed = schema.element.safeParse(element);
    if (parsed.success) kept.push(parsed.data);
    else dropped.push(`${index}: ${issuesOf(parsed.error)}`);
  });
  if (schema.keyOf) kept = withoutRepeats(kept, schema.keyOf, dropped);
  if (dropped.length > 0 && options.strict) throw new Error(dropped.slice(0, 3).join('; '));
  if (dropped.length > 0)
    options.logger.info(
      { registrar: id, operation, dropped: dropped.length, problems: dropped.slice(0, 3) },
      'registrar answer: malformed elements dropped',
    );
  return kept;
}

/** The elements whose key appears once; every element of a repeated key is noted as dropped. */
function withoutRepeats(elements: unknown[], keyOf: (element: never) => string, dropped: string[]): unknown[] {
  const counts = new Map<string, number>();
  for (const element of elements) counts.set(keyOf(element as never), (counts.get(keyOf(element as never)) ?? 0) + 1);
  for (const [key, count] of counts)
    if (count > 1) dropped.push(`${key.slice(0, 80)}: listed ${count} times in one answer`);
  return elements.filter((element) => counts.get(keyOf(element as never)) === 1);
}

function issuesOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`)
    .join('; ');
}

const DEFINITE: ReadonlySet<string> = new Set(['refused', 'unavailable', 'pending']);

function outcomeOf(answer: unknown): RegistrarCallOutcome {
  if (typeof answer !== 'object' || answer === null || (answer as { ok?: unknown }).ok !== false) return 'ok';
  const reason = String((answer as { reason?: unknown }).reason);
  return DEFINITE.has(reason) ? (reason as RegistrarCallOutcome) : 'refused';
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
