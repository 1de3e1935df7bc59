import { enScreens } from '@meterdesk/contracts/locales/en/screens';
import { zhScreens } from '@meterdesk/contracts/locales/zh/screens';
import { i18n } from '@/i18n/i18n';

// Imported for its effect by the shell's routes: the screens' texts stay out of the login chunk.
i18n.addResourceBundle('en', 'translation', enScreens, true, true);
i18n.addResourceBundle('zh', 'translation', zhScreens, true, true);
