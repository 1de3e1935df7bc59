import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useLanguage } from '@/i18n/use-language';
import { LOOKUPS, type TreeOption } from '@/resources/lookups';

export function useLookupTree(name: string | undefined): { options: TreeOption[]; loading: boolean } {
  const { t } = useTranslation();
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
  return {
    options: lookup && query.data ? lookup.toTree(query.data, language, t) : [],
    loading: query.isLoading,
  };
}
