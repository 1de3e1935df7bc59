import { UploadOutlined } from '@ant-design/icons';
import { firmwareApi, firmwareImageIssue, type UploadedImage } from '@meterdesk/contracts';
import { Button, Flex, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { uploadFile } from '@/api/api-client';
import { errorText } from '@/i18n/message-text';

/**
 * The firmware form's image: a .bin file checked here as the server checks it (`firmwareImageIssue`:
 * name, size, content), then uploaded; the form keeps the stored image's id. Test ids: `firmware-upload`
 * (the file input's button), `firmware-upload-info`, `firmware-upload-error`.
 */
export function FirmwareImageInput({
  id,
  value,
  onChange,
}: {
  id?: string;
  value?: unknown;
  onChange?: (value: unknown) => void;
}) {
  const { t } = useTranslation();
  const [uploaded, setUploaded] = useState<UploadedImage | null>(null);
  const [uploading, setUploading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const choose = async (file: File) => {
    setError(null);
    const issue = firmwareImageIssue(file.name, new Uint8Array(await file.arrayBuffer()));
    if (issue) {
      setError(t(`errors.${issue}`));
      return;
    }
    setUploading(true);
    try {
      const image = await uploadFile(firmwareApi.upload, file, 'application/octet-stream');
      setUploaded(image);
      onChange?.(image.imageId);
    } catch (err) {
      setError(errorText(t, err));
    } finally {
      setUploading(false);
    }
  };

  const kept = !uploaded && typeof value === 'string' && value !== '';
  return (
    <Flex vertical gap={4} id={id}>
      <Upload
        accept=".bin"
        maxCount={1}
        showUploadList={false}
        beforeUpload={(file) => {
          void choose(file);
          return false;
        }}
      >
        <Button icon={<UploadOutlined />} loading={uploading} data-testid="firmware-upload">
          {uploading ? t('firmware.upload.uploading') : t('firmware.upload.choose')}
        </Button>
      </Upload>
      {uploaded && (
        <Typography.Text data-testid="firmware-upload-info">
          {t('firmware.upload.uploaded', {
            name: uploaded.fileName,
            size: uploaded.size,
            sha: uploaded.sha256.slice(0, 16),
          })}
        </Typography.Text>
      )}
      {kept && <Typography.Text type="secondary">{t('firmware.upload.kept')}</Typography.Text>}
      {error && (
        <Typography.Text type="danger" data-testid="firmware-upload-error">
          {error}
        </Typography.Text>
      )}
      <Typography.Text type="secondary">{t('firmware.upload.checks')}</Typography.Text>
    </Flex>
  );
}
