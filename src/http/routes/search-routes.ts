import { TOKENS } from '../../core/tokens';
import { route } from '../route-table';
import { Suggestions } from '../wire/reply-schemas';
import { LookupBody, SuggestionsBody, toSearchQuery, toSuggestionWire } from '../wire/search-wire';

export const searchRoutes = [
  route({
    method: 'post',
    path: '/domains/lookup/suggestions',
    access: 'reseller',
    summary: 'The exact name on every searched TLD, then available suggestions by relevance (spec 4.2, elements spec 2.5)',
    input: SuggestionsBody,
    output: Suggestions,
    handler: async ({ input, reseller, resolve }) =>
      (await resolve(TOKENS.searchService).suggestions(reseller.groupId, toSearchQuery(input))).map(toSuggestionWire),
  }),
  route({
    method: 'post',
    path: '/domains/lookup',
    access: 'reseller',
    summary: 'Availability of the exact names: the term on each searched TLD, in the suggestion element shape (decisions.md)',
    input: LookupBody,
    output: Suggestions,
    handler: async ({ input, reseller, resolve }) =>
      (await resolve(TOKENS.searchService).lookup(reseller.groupId, toSearchQuery(input))).map(toSuggestionWire),
  }),
];
