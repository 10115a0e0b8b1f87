import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';

// `removeAdditional: 'all'` deletes every property a schema does not declare while validating, so
// unknown fields are ignored (the contract) and never travel on to handlers or the bus. `verbose`
// keeps each error's schema, which turns a union of literals into one "must be one of" message.
const bodies = new Ajv({ allErrors: true, strict: false, removeAdditional: 'all', verbose: true });
const queries = new Ajv({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true, removeAdditional: 'all', verbose: true });
addFormats.default(bodies);
addFormats.default(queries);

/** A compiled check that throws VALIDATION_FAILED naming the first bad field; it strips undeclared fields. */
export type Check = (value: unknown) => void;

/** One problem with a request, as the error body's `details` lists it. */
export interface ValidationDetail {
  readonly field: string;
  readonly message: string;
}

export function compileBody(schema: TSchema): Check {
  refuseStrippedUnions(schema);
  return toCheck(bodies.compile(schema), 'body');
}

export function compileQuery(schema: TSchema): Check {
  refuseStrippedUnions(schema);
  return toCheck(queries.compile(schema), 'query');
}

function toCheck(validate: ValidateFunction, where: string): Check {
  return (value) => {
    if (validate(value)) return;
    const details = summarise(validate.errors ?? [], where);
    throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Invalid ${where}: ${details[0]?.message ?? 'it does not match the schema'}.`, {
      details,
    });
  };
}

/**
 * One detail per problem: a union (anyOf/oneOf) is one problem however many branches it has, so its
 * branches' errors fold into it, and repeats are dropped.
 */
export function summarise(errors: readonly ErrorObject[], where = 'body'): ValidationDetail[] {
  const unions = errors.filter(isUnion);
  const within = (error: ErrorObject, union: ErrorObject) => error !== union && error.schemaPath.startsWith(`${union.schemaPath}/`);
  const details = new Map<string, ValidationDetail>();
  for (const error of errors) {
    if (unions.some((union) => within(error, union))) continue;
    const detail = isUnion(error) ? describeUnion(error, errors.filter((e) => within(e, error)), where) : describe(error, where);
    details.set(`${detail.field}\0${detail.message}`, detail);
  }
  return [...details.values()];
}

function isUnion(error: ErrorObject): boolean {
  return error.keyword === 'anyOf' || error.keyword === 'oneOf';
}

function fieldOf(error: ErrorObject, where: string): string {
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  const path = missing ? `${error.instancePath}/${missing}` : error.instancePath;
  return path.replace(/^\//, '') || where;
}

function describe(error: ErrorObject, where: string): ValidationDetail {
  const field = fieldOf(error, where);
  const params = error.params as { missingProperty?: string; allowedValues?: unknown[] };
  const message = params.missingProperty
    ? `${field} is required`
    : params.allowedValues
      ? `${field} must be one of ${params.allowedValues.join(', ')}`
      : `${field} ${error.message ?? 'is invalid'}`;
  return { field, message };
}

/** `channel must be one of sms, email, …` for a union of literals; otherwise its branches' messages, joined by "or". */
function describeUnion(error: ErrorObject, branchErrors: readonly ErrorObject[], where: string): ValidationDetail {
  const field = fieldOf(error, where);
  const branches = (Array.isArray(error.schema) ? error.schema : []) as { const?: unknown }[];
  if (branches.length > 0 && branches.every((b) => b !== null && typeof b === 'object' && 'const' in b)) {
    return { field, message: `${field} must be one of ${branches.map((b) => String(b.const)).join(', ')}` };
  }
  const reasons = [...new Set(branchErrors.filter((e) => e.instancePath === error.instancePath && e.message).map((e) => e.message!))];
  return { field, message: reasons.length > 0 ? `${field} ${reasons.join(', or ')}` : `${field} ${error.message ?? 'is invalid'}` };
}

/**
 * `removeAdditional: 'all'` strips, inside a union's first branch, properties that a later object
 * branch declares; a request schema with such a union would lose fields silently, so it is refused
 * when the route is registered. (None exists; this keeps it that way.)
 */
function refuseStrippedUnions(schema: unknown, at = '#'): void {
  if (schema === null || typeof schema !== 'object') return;
  const node = schema as Record<string, unknown>;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (Array.isArray(branches) && branches.filter((b) => (b as { properties?: unknown } | null)?.properties !== undefined).length > 1) {
      throw new Error(`${at}/${keyword}: a request schema may not unite object schemas, because unknown-field stripping would cut one by the other.`);
    }
  }
  for (const [key, child] of Object.entries(node)) refuseStrippedUnions(child, `${at}/${key}`);
}
