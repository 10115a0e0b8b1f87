import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';

const bodies = new Ajv({ allErrors: true, strict: false });
const queries = new Ajv({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true });
addFormats.default(bodies);
addFormats.default(queries);

/** A compiled check that throws VALIDATION_FAILED naming the first bad field. */
export type Check = (value: unknown) => void;

export function compileBody(schema: TSchema): Check {
  return toCheck(bodies.compile(schema), 'body');
}

export function compileQuery(schema: TSchema): Check {
  return toCheck(queries.compile(schema), 'query');
}

function toCheck(validate: ValidateFunction, where: string): Check {
  return (value) => {
    if (validate(value)) return;
    const details = (validate.errors ?? []).map(describe);
    throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Invalid ${where}: ${details[0]?.message ?? 'it does not match the schema'}.`, {
      details,
    });
  };
}

function describe(error: ErrorObject): { field: string; message: string } {
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  const field = missing ? `${error.instancePath}/${missing}`.replace(/^\//, '') : error.instancePath.replace(/^\//, '') || '(root)';
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  const message = missing
    ? `${field} is required`
    : allowed
      ? `${field} must be one of ${allowed.join(', ')}`
      : `${field} ${error.message ?? 'is invalid'}`;
  return { field, message };
}
