import * as z from 'zod/mini';
import { list, loose, nullishBoolean, nullishString, nullishStrings, oneOf } from './wire.ts';

const str = () => nullishString;
// Field kinds' own settings are not listed by the service: kept as sent, typed as an open record.
const anything = z.looseObject({});

/**
 * A form field: common fields and exactly one of seven field kinds; switch on `$kind`.
 *
 * @group Wire model
 */
export const FormFieldSchema = oneOf(
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
 * A form field; switch on `$kind`.
 *
 * @group Wire model
 */
export type FormField = z.output<typeof FormFieldSchema>;

const FieldGroupFields = loose({
  default: nullishBoolean,
  displayName: str(),
  helpText: str(),
  name: str(),
  fields: nullishStrings,
});
/**
 * A group of form fields.
 *
 * @group Wire model
 */
export interface FieldGroup extends z.output<typeof FieldGroupFields> {}
/**
 * A group of form fields.
 *
 * @group Wire model
 */
export const FieldGroupSchema: z.ZodMiniType<FieldGroup, z.input<typeof FieldGroupFields>> = FieldGroupFields;

/**
 * A rule between form fields: exactly one of four kinds; switch on `$kind`.
 *
 * @group Wire model
 */
export const FieldRelationshipSchema = oneOf(
  { fieldNames: nullishStrings },
  {
    requiredTogether: anything,
    atLeastOne: anything,
    mutuallyExclusive: anything,
    dependentOn: loose({ dependencyFieldNames: nullishStrings }),
  },
);
/**
 * A rule between form fields; switch on `$kind`.
 *
 * @group Wire model
 */
export type FieldRelationship = z.output<typeof FieldRelationshipSchema>;

const FormFields = loose({
  id: str(),
  displayName: str(),
  description: str(),
  fields: list(FormFieldSchema),
  fieldGroups: list(FieldGroupSchema),
  fieldRelationships: list(FieldRelationshipSchema),
});
/**
 * A request form.
 *
 * @group Wire model
 */
export interface Form extends z.output<typeof FormFields> {}
/**
 * A request form.
 *
 * @group Wire model
 */
export const FormSchema: z.ZodMiniType<Form, z.input<typeof FormFields>> = FormFields;
