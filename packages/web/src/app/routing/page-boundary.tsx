import { Alert, Button, Spin } from 'antd';
import { Component, type ReactNode, Suspense } from 'react';
import { useTranslation } from 'react-i18next';

function LoadFailed() {
  const { t } = useTranslation();
  return (
    <Alert
      type="error"
      showIcon
      title={t('pages.loadFailed')}
      style={{ margin: 24 }}
      action={
        <Button type="primary" onClick={() => window.location.reload()}>
          {t('pages.reload')}
        </Button>
      }
    />
  );
}

export function PageLoading() {
  return (
    <div style={{ display: 'flex', justifyContent: 'center', padding: 64 }}>
      <Spin size="large" />
    </div>
  );
}

/** A chunk that failed or timed out: reloading fetches the current build's chunks. */
class ChunkErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: unknown): void {
    console.error(error);
  }

  override render(): ReactNode {
    return this.state.failed ? <LoadFailed /> : this.props.children;
  }
}

/** Wraps a lazy page: a spinner while its chunk loads, a reload offer when it cannot. */
export function PageBoundary({ children }: { children: ReactNode }) {
  return (
    <ChunkErrorBoundary>
      <Suspense fallback={<PageLoading />}>{children}</Suspense>
    </ChunkErrorBoundary>
  );
}
