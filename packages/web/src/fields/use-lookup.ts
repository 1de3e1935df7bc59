import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useLanguage } from '@/i18n/use-language';
import { LOOKUPS, type LookupOption, type LookupSearch } from '@/resources/lookups';

const NO_SEARCH: LookupSearch = { keyword: '', values: [], context: {} };

/**
 * The options of a named lookup. A searched one (`Lookup.searched`) is asked for `search`: what the
 * user typed, the values the field holds and the form's filters; the others load once and ignore it.
 * `enabled: false` asks nothing (a filter the form has not supplied yet).
 */
export function useLookup(
  name: string | undefined,
  search: LookupSearch = NO_SEARCH,
  enabled = true,
): { options: LookupOption[]; loading: boolean; searched: boolean; more: boolean } {
  const language = useLanguage();
  const lookup = name ? LOOKUPS[name] : undefined;
  const searched = lookup?.searched === true;
  const asked = searched ? search : NO_SEARCH;
  const query = useQuery({
    queryKey: searched ? ['lookup', name, asked.keyword, asked.values, asked.context] : ['lookup', name],
    queryFn: ({ signal }) => {
      if (!lookup) throw new Error(`Unknown lookup "${name}"`);
      return lookup.load(signal, asked);
    },
    enabled: Boolean(name) && enabled,
    // Typing on keeps the last answer on screen until the next one arrives.
    placeholderData: searched ? keepPreviousData : undefined,
  });
  const data = enabled ? query.data : undefined;
  return {
    options: lookup && data ? lookup.options(data, language) : [],
    loading: searched ? query.isFetching : query.isLoading,
    searched,
    more: Boolean(lookup?.more && data && lookup.more(data)),
  };
}
