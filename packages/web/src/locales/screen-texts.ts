import { i18n } from '@/i18n/i18n';
import { enScreens } from './en/screens';
import { zhScreens } from './zh/screens';

// Imported for its effect by the shell's routes: the screens' texts stay out of the login chunk.
i18n.addResourceBundle('en', 'translation', enScreens, true, true);
i18n.addResourceBundle('zh', 'translation', zhScreens, true, true);
