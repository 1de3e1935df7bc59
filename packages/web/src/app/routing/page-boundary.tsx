import { Component, type ReactNode, Suspense } from 'react';
import { useTranslation } from 'react-i18next';

function LoadFailed() {
  const { t } = useTranslation();
  return (
    <div role="alert" className="md-alert" style={{ margin: 24 }}>
      <span>{t('pages.loadFailed')}</span>
      <button type="button" className="md-button md-button-primary" onClick={() => window.location.reload()}>
        {t('pages.reload')}
      </button>
    </div>
  );
}

/** Plain markup: it shows before antd has loaded (global.css). */
export function PageLoading() {
  return <div className="md-spinner" role="status" aria-busy="true" />;
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
