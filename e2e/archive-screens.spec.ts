import { expect, type Page, test } from '@playwright/test';
import { ADMIN_ROLE_ID, adminApi, createUser, LONG_JOURNEY_MS, pageAs } from './helpers';

const ARCHIVE_LISTS = [
  '/archiveSetting/powerGrid',
  '/archiveSetting/consumer',
  '/archiveSetting/module',
  '/archiveSetting/meter',
  '/archiveSetting/poc',
  '/archiveSetting/DCU',
  '/parameterSetting/supplier',
  '/parameterSetting/meterType',
];
const RAW_KEY =
  /\b(?:common|errors|crud|grid|consumer|supplier|meterType|module|meter|poc|dcu|gis)\.[A-Za-z]+(?:\.[A-Za-z0-9]+)*\b/;
/** A desktop screen the archive is laid out for. */
const DESKTOP = { width: 1440, height: 900 };

/** The headers of the page's list that reach under its fixed Actions column, which would hide their cells. */
function headersUnderActions(page: Page): Promise<string[]> {
  return page
    .getByTestId('page-area')
    .locator('.ant-table-thead')
    .evaluate((head) => {
      const actions = head.querySelector('.ant-table-cell-fix-end')?.getBoundingClientRect();
      if (!actions) return ['(no fixed Actions column)'];
      return Array.from(head.querySelectorAll('th:not(.ant-table-cell-fix-end)'))
        .filter((th) => th.getBoundingClientRect().right > actions.left + 1)
        .map((th) => th.textContent ?? '');
    });
}

/** The names in a tree list's first column that run over more than one line. */
function brokenTreeNames(page: Page): Promise<string[]> {
  return page
    .getByTestId('page-area')
    .locator('.ant-table-tbody')
    .evaluate((body) =>
      Array.from(body.querySelectorAll('.ant-table-cell-with-append')).flatMap((cell) => {
        const lines = new Set<number>();
        const texts = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let text = texts.nextNode(); text; text = texts.nextNode()) {
          const range = document.createRange();
          range.selectNodeContents(text);
          for (const rect of Array.from(range.getClientRects())) lines.add(Math.round(rect.top));
        }
        return lines.size > 1 ? [cell.textContent ?? ''] : [];
      }),
    );
}

// A language each, with an administrator of its own: the language is stored for the user.
for (const language of ['en', 'zh'] as const) {
  test(`every archive list shows all its columns at 1440 px, and its pages are translated (${language})`, async ({
    browser,
  }) => {
    test.setTimeout(LONG_JOURNEY_MS);
    const admin = await adminApi();
    const user = await createUser(admin, [ADMIN_ROLE_ID]);
    await admin.dispose();
    const page = await pageAs(browser, user);
    await page.setViewportSize(DESKTOP);
    const archiveMenu = page.getByTestId('menu-/archiveSetting');
    const archiveTitle = language === 'zh' ? '档案管理' : 'Archive';

    await page.goto('/');
    await page.getByTestId('language-switch').click();
    await page.getByTestId(`language-${language}`).click();
    await expect(archiveMenu).toHaveText(archiveTitle);
    const area = page.getByTestId('page-area');
    for (const path of ARCHIVE_LISTS) {
      await page.goto(path);
      await expect(archiveMenu).toHaveText(archiveTitle);
      await expect(area.locator('.ant-table-row').first()).toBeVisible();
      await expect(area.locator('.ant-spin-spinning')).toHaveCount(0);
      expect(await area.innerText(), `${language} ${path}`).not.toMatch(RAW_KEY);
      expect(await headersUnderActions(page), `${language} ${path}: columns under Actions`).toEqual([]);
      expect(await brokenTreeNames(page), `${language} ${path}: tree names on two lines`).toEqual([]);

      await page.goto(`${path}/add`);
      await expect(area.locator('form')).toBeVisible();
      expect(await area.innerText(), `${language} ${path}/add`).not.toMatch(RAW_KEY);
    }

    await page.goto('/archiveSetting/meter');
    await page.getByTestId('crud-import').click();
    await expect(page.getByTestId('import-dialog').locator('.ant-modal-title')).toHaveText(
      language === 'zh' ? '导入：电表档案' : 'Import: Meters',
    );
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('import-dialog')).toBeHidden();

    // Saving a long form from its bottom with a mandatory field left blank shows that field.
    await page.goto('/archiveSetting/meter/add');
    const save = page.getByTestId('crud-save');
    await save.scrollIntoViewIfNeeded();
    await expect(page.getByTestId('field-devAddr')).not.toBeInViewport();
    await save.click();
    await expect(page.getByTestId('field-devAddr')).toBeInViewport();
    await expect(page.getByTestId('field-devAddr')).toBeFocused();
    await page.context().close();
  });
}
