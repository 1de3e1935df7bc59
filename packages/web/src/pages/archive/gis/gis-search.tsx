import { SearchOutlined } from '@ant-design/icons';
import { GIS_KINDS, type GisFound, gisFindApi, MAX_SEARCH_LENGTH } from '@meterdesk/contracts';
import { keepPreviousData, skipToken, useQuery } from '@tanstack/react-query';
import { AutoComplete, Flex, Input, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { errorText } from '@/i18n/message-text';

/** How long typing pauses before the server is asked, as a searched picker waits. */
export const SEARCH_DEBOUNCE_MS = 300;

const optionValue = (found: Pick<GisFound, 'kind' | 'id'>) => `${found.kind}:${found.id}`;

/** Where a found record lies, when not at its own position: approximately, or nowhere. */
export function PlacementTag({ found }: { found: Pick<GisFound, 'placement'> }) {
  const { t } = useTranslation();
  if (found.placement === 'own') return null;
  return (
    <Tag color={found.placement ? 'gold' : 'default'} data-testid="gis-placement">
      {t(`liveState.placement.${found.placement ?? 'none'}`)}
    </Tag>
  );
}

/**
 * The map's search box (test id `gis-search`): meters, consumers and DCUs of the caller's grid by
 * number or name, as the user types. Choosing one hands it to `onChoose`, which moves the map there
 * and opens its popup, or says it is not on the map.
 */
export function GisSearch({ onChoose }: { onChoose: (found: GisFound) => void }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [keyword, setKeyword] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(text.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  const found = useQuery({
    queryKey: ['gis', 'search', keyword],
    queryFn: keyword ? ({ signal }) => callApi(gisFindApi.search, { keyword }, { signal }) : skipToken,
    placeholderData: keepPreviousData,
  });
  const list = keyword ? (found.data?.list ?? []) : [];
  const notice = (testId: string, content: string) => ({
    label: (
      <Typography.Text type="secondary" data-testid={testId}>
        {content}
      </Typography.Text>
    ),
    options: [],
  });
  const options = [
    ...GIS_KINDS.flatMap((kind) => {
      const ofKind = list.filter((f) => f.kind === kind);
      return ofKind.length
        ? [
            {
              label: t(`gis.kinds.${kind}`),
              options: ofKind.map((f) => ({
                value: optionValue(f),
                label: (
                  <Flex
                    gap={8}
                    align="center"
                    justify="space-between"
                    data-testid={`gis-search-option-${f.kind}-${f.label}`}
                  >
                    <span>
                      {f.label}
                      {f.name && <Typography.Text type="secondary"> {f.name}</Typography.Text>}
                    </span>
                    <PlacementTag found={f} />
                  </Flex>
                ),
              })),
            },
          ]
        : [];
    }),
    ...(found.error ? [notice('gis-search-error', errorText(t, found.error))] : []),
    ...(keyword && found.data && !found.isPlaceholderData && list.length === 0
      ? [notice('gis-search-empty', t('liveState.search.empty'))]
      : []),
    ...(found.data?.more && keyword ? [notice('gis-search-more', t('liveState.search.more'))] : []),
  ];
  return (
    <AutoComplete
      value={text}
      options={options}
      onSearch={setText}
      onChange={(next: string) => setText(next)}
      onSelect={(value: string) => {
        const chosen = list.find((f) => optionValue(f) === value);
        if (!chosen) return;
        setText(chosen.label);
        onChoose(chosen);
      }}
      style={{ width: 340 }}
      popupMatchSelectWidth={420}
    >
      <Input
        data-testid="gis-search"
        allowClear
        maxLength={MAX_SEARCH_LENGTH}
        prefix={<SearchOutlined />}
        placeholder={t('liveState.search.placeholder')}
      />
    </AutoComplete>
  );
}
