import { useQuery } from '@tanstack/react-query';
import { useLanguage } from '@/i18n/use-language';
import { LOOKUPS, type LookupOption } from '@/resources/lookups';

export function useLookup(name: string | undefined): { options: LookupOption[]; loading: boolean } {
  const language = useLanguage();
  const lookup = name ? LOOKUPS[name] : undefined;
  const query = useQuery({
    queryKey: ['lookup', name],
    queryFn: ({ signal }) => {
      if (!lookup) throw new Error(`Unknown lookup "${name}"`);
      return lookup.load(signal);
    },
    enabled: Boolean(name),
  });
  return { options: lookup && query.data ? lookup.options(query.data, language) : [], loading: query.isLoading };
}
