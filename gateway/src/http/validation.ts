import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { isInstant } from './instant.js';

// Request schemas declare `additionalProperties: false`, so a field a route does not take is an error
// (`bodyy`, `channnel`), never dropped in silence. `verbose` keeps each error's schema and parent
// schema: the object an unknown field was found in names the allowed ones, and a union of literals
// becomes one "must be one of" message.
const bodies = new Ajv({ allErrors: true, strict: false, verbose: true });
const queries = new Ajv({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true, verbose: true });
addFormats.default(bodies);
addFormats.default(queries);
// ajv-formats' date-time takes a leap second and an offset of hours alone (`+23`), which no Date
// holds: the handler's `new Date(since).toISOString()` then threw, a 500. Only real instants pass.
for (const ajv of [bodies, queries]) ajv.addFormat('date-time', { type: 'string', validate: isInstant });

/**
 * A compiled check. It throws BAD_REQUEST when the input has a field the schema does not declare
 * (naming each unknown field and the allowed ones), else VALIDATION_FAILED naming the first bad field.
 */
export type Check = (value: unknown, where?: string) => void;

/** One problem with a request, as the error body's `details` lists it. */
export interface ValidationDetail {
  readonly field: string;
  readonly message: string;
  /** For an unknown field: the fields the object it was found in takes. */
  readonly allowed?: readonly string[];
}

export function compileBody(schema: TSchema): Check {
  requireDeclaredObjects(schema);
  return toCheck(bodies.compile(schema), 'body');
}

export function compileQuery(schema: TSchema): Check {
  requireDeclaredObjects(schema);
  return toCheck(queries.compile(schema), 'query');
}

/** `where` names the input in messages: body or query, or an MCP tool's arguments. */
function toCheck(validate: ValidateFunction, input: string): Check {
  return (value, where = input) => {
    if (validate(value)) return;
    const details = summarise(validate.errors ?? [], where);
    const unknown = details.filter((d) => d.allowed !== undefined);
    if (unknown.length > 0) {
      // An unknown field leads: a misspelt name usually also makes the real one missing. A body of
      // thousands of made-up keys gets an answer of a few lines, not one line per key.
      const named = unknown.slice(0, MAX_NAMED);
      const others = details.filter((d) => d.allowed === undefined).slice(0, MAX_NAMED);
      throw new SwitchboardError(ErrorCodes.BAD_REQUEST, unknownFieldsMessage(named, unknown.length, where), { details: [...named, ...others] });
    }
    throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, sentence(`Invalid ${where}: ${details[0]?.message ?? 'it does not match the schema'}`), { details });
  };
}

/** Unknown fields named in one answer; the rest are counted. */
const MAX_NAMED = 20;

/** `Unknown field bodyy in body; allowed: agentId, channel, to, body, …` for the first object that has unknown fields. */
function unknownFieldsMessage(named: readonly ValidationDetail[], count: number, where: string): string {
  const first = named[0]!;
  const at = parentOf(first.field);
  const here = named.filter((d) => parentOf(d.field) === at);
  const names = here.map((d) => nameOf(d.field));
  const allowed = first.allowed!.length > 0 ? `allowed: ${first.allowed!.join(', ')}` : 'it takes no fields';
  const more = count > here.length ? ` (and ${count - here.length} more)` : '';
  return sentence(`Unknown field${names.length > 1 ? 's' : ''} ${names.join(', ')} in ${at || where}; ${allowed}${more}`);
}

const parentOf = (field: string) => (field.includes('/') ? field.slice(0, field.lastIndexOf('/')) : '');
const nameOf = (field: string) => field.slice(field.lastIndexOf('/') + 1);
/** A name as a message quotes it: a made-up key may be any length. */
const quoted = (name: string) => (name.length > 64 ? `${name.slice(0, 64)}…` : name);

/** Ends a message with exactly one full stop, however its last part ended. */
export function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * One detail per problem: each unknown field is one; a union (anyOf/oneOf) is one problem however
 * many branches it has, so its branches' errors fold into it; repeats are dropped.
 */
export function summarise(errors: readonly ErrorObject[], where = 'body'): ValidationDetail[] {
  const unions = errors.filter(isUnion);
  const within = (error: ErrorObject, union: ErrorObject) => error !== union && error.schemaPath.startsWith(`${union.schemaPath}/`);
  const details = new Map<string, ValidationDetail>();
  for (const error of errors) {
    if (unions.some((union) => within(error, union))) continue;
    const found = isUnion(error) ? describeUnion(error, errors.filter((e) => within(e, error)), where) : [describe(error, where)];
    for (const detail of found) details.set(`${detail.field}\0${detail.message}`, detail);
  }
  return [...details.values()];
}

function isUnion(error: ErrorObject): boolean {
  return error.keyword === 'anyOf' || error.keyword === 'oneOf';
}

function fieldOf(error: ErrorObject, where: string): string {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const named = params.missingProperty ?? (params.additionalProperty === undefined ? undefined : quoted(params.additionalProperty));
  const path = named !== undefined ? `${error.instancePath}/${named}` : error.instancePath;
  return path.replace(/^\//, '') || where;
}

/** The property names an object schema declares. */
function declared(schema: unknown): string[] {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  return properties !== null && typeof properties === 'object' ? Object.keys(properties) : [];
}

function unknownField(field: string, allowed: readonly string[]): ValidationDetail {
  return { field, message: `${nameOf(field)} is not a field here; ${allowed.length > 0 ? `allowed: ${allowed.join(', ')}` : 'it takes no fields'}`, allowed };
}

function describe(error: ErrorObject, where: string): ValidationDetail {
  const field = fieldOf(error, where);
  if (error.keyword === 'additionalProperties') return unknownField(field, declared(error.parentSchema));
  const params = error.params as { missingProperty?: string; allowedValues?: unknown[] };
  const message = params.missingProperty
    ? `${field} is required`
    : params.allowedValues
      ? `${field} must be one of ${params.allowedValues.join(', ')}`
      : `${field} ${error.message ?? 'is invalid'}`;
  return { field, message };
}

/**
 * `channel must be one of sms, email, …` for a union of literals. For a union of objects, a field no
 * branch declares is an unknown field, allowed being every branch's fields. Otherwise the branches'
 * messages, joined by "or".
 */
function describeUnion(error: ErrorObject, branchErrors: readonly ErrorObject[], where: string): ValidationDetail[] {
  const field = fieldOf(error, where);
  const branches = (Array.isArray(error.schema) ? error.schema : []) as { const?: unknown }[];
  if (branches.length > 0 && branches.every((b) => b !== null && typeof b === 'object' && 'const' in b)) {
    return [{ field, message: `${field} must be one of ${branches.map((b) => String(b.const)).join(', ')}` }];
  }
  const allowed = [...new Set(branches.flatMap(declared))];
  const strangers = branchErrors
    .filter((e) => e.keyword === 'additionalProperties' && e.instancePath === error.instancePath)
    .map((e) => fieldOf(e, where))
    .filter((name) => !allowed.includes(nameOf(name)));
  if (strangers.length > 0) return [...new Set(strangers)].map((name) => unknownField(name, allowed));
  // The one object branch that takes every field given is the one the caller meant: its own errors.
  const fitting = branches
    .map((_, i) => branchErrors.filter((e) => e.schemaPath.startsWith(`${error.schemaPath}/${i}/`)))
    .filter((own) => own.length > 0 && !own.some((e) => e.keyword === 'additionalProperties' && e.instancePath === error.instancePath));
  if (allowed.length > 0 && fitting.length === 1) return summarise(fitting[0]!, where);
  const reasons = [
    ...new Set(
      branchErrors
        .filter((e) => e.instancePath === error.instancePath && e.message)
        .map((e) => (e.keyword === 'additionalProperties' ? `must not have ${(e.params as { additionalProperty: string }).additionalProperty}` : e.message!)),
    ),
  ];
  return [{ field, message: reasons.length > 0 ? `${field} ${reasons.join(', or ')}` : `${field} ${error.message ?? 'is invalid'}` }];
}

/**
 * Every object in a request schema must say whether it takes fields it does not declare
 * (`additionalProperties`): false for the contract's bodies and queries, true only where a
 * transport, not this pipeline, reads the shape. An `allOf` of objects is refused, because each
 * closed part would refuse the others' fields (Type.Composite merges them into one object instead).
 * Checked when the route is registered, so a new schema cannot silently accept unknown fields.
 */
function requireDeclaredObjects(schema: unknown, at = '#'): void {
  if (schema === null || typeof schema !== 'object') return;
  const node = schema as Record<string, unknown>;
  if (node.properties !== undefined && node.additionalProperties === undefined) {
    throw new Error(`${at}: a request object schema must set additionalProperties (false, so that unknown fields are refused).`);
  }
  if (Array.isArray(node.allOf) && node.allOf.some((part) => (part as { properties?: unknown } | null)?.properties !== undefined)) {
    throw new Error(`${at}/allOf: a request schema may not intersect object schemas; use Type.Composite.`);
  }
  for (const [key, child] of Object.entries(node)) requireDeclaredObjects(child, `${at}/${key}`);
}
