import { z } from 'zod';

/** A single text field: PHP clients may repeat a name by mistake; one value is required. */
export const text = (field: string) =>
  z.string({
    error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a single text value`),
  });

export const optionalText = (field: string) => text(field).optional();

export const domainField = text('domain')
  .max(1024, 'domain is too long')
  .meta({ description: 'A domain name: Unicode or punycode, any case', examples: ['example.com'] });

/** docs/api.md#requests: booleans accept true/false, 1/0, on/off, yes/no. */
export const wireBoolean = (field: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine(
      (v) => ['true', 'false', '1', '0', 'on', 'off', 'yes', 'no', ''].includes(v),
      `${field} must be true or false`,
    )
    .transform((v) => ['true', '1', 'on', 'yes'].includes(v))
    .meta({
      description: 'A boolean: true/false, 1/0, on/off or yes/no',
      enum: ['true', 'false', '1', '0', 'on', 'off', 'yes', 'no'],
    });

export const noInput = z.object({});
