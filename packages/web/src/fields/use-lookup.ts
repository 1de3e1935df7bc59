import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useLanguage } from '@/i18n/use-language';
import { LOOKUPS, type LookupOption, type LookupSearch } from '@/resources/lookups';

const NO_SEARCH: LookupSearch = { keyword: '', values: [] };

/**
 * The options of a named lookup. A searched one (`Lookup.searched`) is asked for `search`: what the
 * user typed and the values the field holds; the others load once and ignore it.
 */
export function useLookup(
  name: string | undefined,
  search: LookupSearch = NO_SEARCH,
): { options: LookupOption[]; loading: boolean; searched: boolean } {
  const language = useLanguage();
  const lookup = name ? LOOKUPS[name] : undefined;
  const searched = lookup?.searched === true;
  const asked = searched ? search : NO_SEARCH;
  const query = useQuery({
    queryKey: searched ? ['lookup', name, asked.keyword, asked.values] : ['lookup', name],
    queryFn: ({ signal }) => {
      if (!lookup) throw new Error(`Unknown lookup "${name}"`);
      return lookup.load(signal, asked);
    },
    enabled: Boolean(name),
    // Typing on keeps the last answer on screen until the next one arrives.
    placeholderData: searched ? keepPreviousData : undefined,
  });
  return {
    options: lookup && query.data ? lookup.options(query.data, language) : [],
    loading: searched ? query.isFetching : query.isLoading,
    searched,
  };
}
