import { z } from 'zod';
import { IdSchema } from './ids';

/** Most options one picker search answers; `more` tells the user to narrow the keyword for the others. */
export const MAX_OPTIONS = 20;
/** Records a picker names by id at once (the values its field holds). */
export const MAX_NAMED_OPTIONS = 10;

/** What every picker search takes; an entity's options call may add filters of its own. */
export const OptionsQuerySchema = z.strictObject({
  keyword: z
    .string()
    .trim()
    .max(50, 'tooLong')
    .default('')
    .describe('Part of the business key (or name) the user typed; empty answers the first records'),
  ids: z
    .array(IdSchema)
    .max(MAX_NAMED_OPTIONS, 'tooLong')
    .default([])
    .describe(
      'Records the picker already holds (an edited record’s references), answered first whatever the keyword and filters',
    ),
});
export type OptionsQuery = z.infer<typeof OptionsQuerySchema>;

/** One choice of a picker: the record's id and how the user knows it. */
export const OptionSchema = z.object({ id: IdSchema, label: z.string() });
export type Option = z.infer<typeof OptionSchema>;

/** The answer of a picker search, its options carrying `option`'s members (e.g. a meter type's supplier). */
export const optionsAnswer = <O extends z.ZodObject>(option: O) =>
  z.object({
    list: z.array(option).describe(`The records named by ids, then at most ${MAX_OPTIONS} matches in key order`),
    more: z.boolean().describe('More records match than the answer holds: the user narrows the keyword'),
  });
export type OptionsAnswer<O extends Option = Option> = { list: O[]; more: boolean };
