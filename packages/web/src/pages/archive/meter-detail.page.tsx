import { Flex } from 'antd';
import { useSearchParams } from 'react-router';
import type { CrudConfig } from '@/crud/crud-config';
import { CrudDetailPage } from '@/crud/crud-detail';
import { MeterHistory } from './meter-history';

/** The kit's detail page of a meter, with its dated status history below. */
export function MeterDetailPage({ crud }: { crud: CrudConfig }) {
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  return (
    <Flex vertical gap="middle">
      <CrudDetailPage crud={crud} />
      {id && <MeterHistory id={id} />}
    </Flex>
  );
}
