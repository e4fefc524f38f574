import { TOKENS } from '../../core/tokens';
import { route, type Route } from '../route-table';
import { Suggestions } from '../wire/reply-schemas';
import { LookupBody, SuggestionsBody, toSearchQuery, toSuggestionWire } from '../wire/search-wire';

type SearchBody = typeof LookupBody | typeof SuggestionsBody;

/** A search over the TLDs of the reseller's group: the body as a search query, each result in the suggestion element shape. */
function searchRoute({
  path,
  summary,
  input,
  search,
}: {
  readonly path: string;
  readonly summary: string;
  readonly input: SearchBody;
  /** The search service's method that answers. */
  readonly search: 'suggestions' | 'lookup';
}): Route<SearchBody> {
  return route({
    method: 'post',
    path,
    access: 'reseller',
    summary,
    input,
    output: Suggestions,
    handler: async ({ input: body, reseller, resolve }) =>
      (await resolve(TOKENS.searchService)[search](reseller.groupId, toSearchQuery(body), reseller.id)).map(
        toSuggestionWire,
      ),
  });
}

export const searchRoutes = [
  searchRoute({
    path: '/domains/lookup/suggestions',
    summary: 'The exact name on every searched TLD, then available suggestions by relevance',
    input: SuggestionsBody,
    search: 'suggestions',
  }),
  searchRoute({
    path: '/domains/lookup',
    summary: 'Availability of the exact names: the term on each searched TLD, in the suggestion element shape',
    input: LookupBody,
    search: 'lookup',
  }),
];
