import type { Page } from '@playwright/test';
import { expectChineseFont, openInApp, STORED_LOGIN } from './helpers';
import { expect, test } from './journey';

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

const LANGUAGES = [
  { language: 'en', login: STORED_LOGIN.admin, archiveTitle: 'Archive', importTitle: 'Import: Meters' },
  { language: 'zh', login: STORED_LOGIN.adminZh, archiveTitle: '档案管理', importTitle: '导入：电表档案' },
] as const;

for (const { language, login, archiveTitle, importTitle } of LANGUAGES) {
  test.describe(`archive screens (${language})`, () => {
    test.use({ storageState: login, viewport: DESKTOP });

    // One journey walks every list in the app already loaded: a full load per list cost each of them seconds.
    test(`every archive list shows all its columns at 1440 px, and it and its form are translated (${language})`, async ({
      page,
    }) => {
      test.setTimeout(300_000);
      const area = page.getByTestId('page-area');
      await page.goto(ARCHIVE_LISTS[0] ?? '/');
      await expect(page.getByTestId('menu-/archiveSetting')).toHaveText(archiveTitle);
      if (language === 'zh') await expectChineseFont(page);
      for (const listPath of ARCHIVE_LISTS) {
        await test.step(listPath, async () => {
          await openInApp(page, listPath);
          await expect(area.locator('.ant-table-row').first()).toBeVisible();
          await expect(area.locator('.ant-spin-spinning')).toHaveCount(0);
          expect(await area.innerText(), `${language} ${listPath}`).not.toMatch(RAW_KEY);
          expect(await headersUnderActions(page), `${language} ${listPath}: columns under Actions`).toEqual([]);
          expect(await brokenTreeNames(page), `${language} ${listPath}: tree names on two lines`).toEqual([]);

          await openInApp(page, `${listPath}/add`);
          await expect(area.locator('form')).toBeVisible();
          expect(await area.innerText(), `${language} ${listPath}/add`).not.toMatch(RAW_KEY);
        });
      }
    });

    test(`the meter import dialog is titled, and saving the meter form from its bottom shows the first blank mandatory field (${language})`, async ({
      page,
    }) => {
      await page.goto('/archiveSetting/meter');
      await page.getByTestId('crud-import').click();
      await expect(page.getByTestId('import-dialog').locator('.ant-modal-title')).toHaveText(importTitle);
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('import-dialog')).toBeHidden();

      await openInApp(page, '/archiveSetting/meter/add');
      const save = page.getByTestId('crud-save');
      await save.scrollIntoViewIfNeeded();
      await expect(page.getByTestId('field-devAddr')).not.toBeInViewport();
      await save.click();
      await expect(page.getByTestId('field-devAddr')).toBeInViewport();
      await expect(page.getByTestId('field-devAddr')).toBeFocused();
    });
  });
}
