import * as z from 'zod/mini';
import { loose, nullishBoolean, nullishString, oneOf, opt } from './wire.ts';

const str = () => nullishString;
// Field kinds' own settings are not listed by the service: kept as sent, typed as an open record.
const anything = z.looseObject({});

/**
 * A form field: common fields and exactly one of seven field kinds; switch on `kind`.
 *
 * @group Wire model
 */
export const FormFieldSchema = oneOf(
  'kind',
  {
    name: str(),
    displayName: str(),
    description: str(),
    required: nullishBoolean,
    readOnly: nullishBoolean,
  },
  {
    stringField: anything,
    boolField: anything,
    stringSliceField: anything,
    int64Field: anything,
    fileField: anything,
    oauth2Field: anything,
    stringMapField: anything,
  },
);
/**
 * A form field; switch on `kind`.
 *
 * @group Wire model
 */
export type FormField = z.output<typeof FormFieldSchema>;

/**
 * A group of form fields.
 *
 * @group Wire model
 */
export const FieldGroupSchema = loose({
  default: nullishBoolean,
  displayName: str(),
  helpText: str(),
  name: str(),
  fields: opt(z.array(z.string())),
});
/**
 * A group of form fields.
 *
 * @group Wire model
 */
export type FieldGroup = z.output<typeof FieldGroupSchema>;

/**
 * A rule between form fields: exactly one of four kinds; switch on `kind`.
 *
 * @group Wire model
 */
export const FieldRelationshipSchema = oneOf(
  'kind',
  { fieldNames: opt(z.array(z.string())) },
  {
    requiredTogether: anything,
    atLeastOne: anything,
    mutuallyExclusive: anything,
    dependentOn: loose({ dependencyFieldNames: opt(z.array(z.string())) }),
  },
);
/**
 * A rule between form fields; switch on `kind`.
 *
 * @group Wire model
 */
export type FieldRelationship = z.output<typeof FieldRelationshipSchema>;

/**
 * A request form.
 *
 * @group Wire model
 */
export const FormSchema = loose({
  id: str(),
  displayName: str(),
  description: str(),
  fields: opt(z.array(FormFieldSchema)),
  fieldGroups: opt(z.array(FieldGroupSchema)),
  fieldRelationships: opt(z.array(FieldRelationshipSchema)),
});
/**
 * A request form.
 *
 * @group Wire model
 */
export type Form = z.output<typeof FormSchema>;
