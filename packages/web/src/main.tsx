import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createQueryClient } from '@/api/query-client';
import { AppRoot } from '@/app/app';
import { createAppRouter } from '@/app/router';
import '@/app/global.css';
import '@/i18n/i18n';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <AppRoot router={createAppRouter()} queryClient={createQueryClient()} />
  </StrictMode>,
);
