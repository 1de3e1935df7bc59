import { DCU_RES, type Dcu, type DcuKeys, MODULE_RES, type Module, POC_RES, type Poc } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../crypto/secret-box';
import { newId } from '../../db/ids';
import { consumer, dcu, meter, poc } from '../../db/schema';
import { firstRecord } from '../../test/archive-fixtures';
import { addGridNode, loginGridUser } from '../../test/grid';
import { createTestApp, type TestApp } from '../../test/harness';
import { archiveCounts, importRows } from './import/import-testing';

/** The module, POC and DCU imports: each checks its rows as its own save does, within the caller's scope. */
describe('module, POC and DCU imports', () => {
  let t: TestApp;
  let admin: string;
  let gridA: string;
  let gridB: string;

  const first = <T>(path: string, filter: Record<string, string>) => firstRecord<T>(t, admin, path, filter);
  const insertMeter = async (devAddr: string, gridId: string) => {
    const id = newId();
    await t.db.insert(meter).values({ id, devAddr, gridId });
    return id;
  };

  beforeAll(async () => {
    t = await createTestApp({}, { jobs: true });
    admin = await t.loginAdmin();
    gridA = await addGridNode(t, 'RIA');
    gridB = await addGridNode(t, 'RIB');
    await t.call('/supplier/save', { supplierCode: 'HX', supplierName: 'Hexing' }, admin);
    const consumerOf = (consumerCode: string, gridId: string) => ({
      id: newId(),
      consumerCode,
      consumerName: consumerCode,
      consumerType: 'residential',
      paymentMode: 'prepay',
      gridId,
    });
    await t.db.insert(consumer).values([consumerOf('CPA01', gridA), consumerOf('CPB01', gridB)]);
    await insertMeter('MPA00001', gridA);
    await insertMeter('MPA00003', gridA);
    await insertMeter('MPB00001', gridB);
    await t.db.insert(poc).values({
      id: newId(),
      pocNo: 'PEXIST',
      nature: 1,
      gridId: gridA,
      meterId: await insertMeter('MPA00002', gridA),
    });
    await t.db.insert(dcu).values([
      { id: newId(), dcuNo: 'DCPA', gridId: gridA },
      { id: newId(), dcuNo: 'DCPB', gridId: gridB },
    ]);
  });
  afterAll(() => t.close());

  describe('modules', () => {
    it('imports a valid file, device type and working mode by value or label', async () => {
      const status = await importRows(
        t,
        'module',
        [
          ['moduleNo', 'deviceType', 'gridName', 'workingMode', 'simNo', 'commAddress'],
          ['MODI1', 'Meter (PLC module)', 'RIA', '', '13800000001', '10.0.0.1'],
          ['MODI2', '4', 'Grid RIA', 'Web service', '', ''],
        ],
        admin,
      );
      expect(status).toMatchObject({ state: 'done', imported: 2 });
      expect(await first<Module>('module', { moduleNo: 'MODI1' })).toMatchObject({
        deviceType: 2,
        workingMode: 'client',
        simNo: '13800000001',
        commAddress: '10.0.0.1',
        gridId: gridA,
      });
      expect(await first<Module>('module', { moduleNo: 'MODI2' })).toMatchObject({
        deviceType: 4,
        workingMode: 'webService',
      });
    });

    it('writes nothing when rows are bad, and names each bad cell', async () => {
      const before = await archiveCounts(t);
      const status = await importRows(
        t,
        'module',
        [
          ['moduleNo', 'deviceType', 'gridName', 'simNo'],
          ['MODI11', '2', 'RIA', ''],
          ['MOD-12', '2', 'RIA', ''],
          ['MODI13', '9', 'RIA', ''],
          ['MODI14', '', 'RIA', '13x'],
          ['MODI1', '2', 'RIA', ''],
          ['MODI11', '2', 'RIA', ''],
        ],
        admin,
      );
      expect(status.errors).toEqual([
        {
          line: 3,
          column: 'moduleNo',
          columnLetter: 'A',
          code: 'codeFormat',
          cause: 'Only letters and digits are allowed: MOD-12',
        },
        { line: 4, column: 'deviceType', columnLetter: 'B', code: 'invalidValue', cause: 'Invalid value: 9' },
        { line: 5, column: 'deviceType', columnLetter: 'B', code: 'mandatory', cause: 'This part is mandatory' },
        { line: 5, column: 'simNo', columnLetter: 'D', code: 'digitsOnly', cause: 'Only digits are allowed: 13x' },
        { line: 6, column: 'moduleNo', columnLetter: 'A', code: 'existed', cause: 'existed: MODI1' },
        {
          line: 7,
          column: 'moduleNo',
          columnLetter: 'A',
          code: 'importDuplicateInFile',
          cause: 'The same value appears twice in the file: MODI11 (line 2)',
        },
      ]);
      expect(await archiveCounts(t)).toEqual(before);
    });

    it("refuses a grid node outside the caller's scope, and reads Chinese headers", async () => {
      const scoped = await loginGridUser(t, 'module.importer', [gridA], [MODULE_RES.page, MODULE_RES.import!]);
      const refused = await importRows(
        t,
        'module',
        [
          ['moduleNo', 'deviceType', 'gridName'],
          ['MODI21', '2', 'RIB'],
          ['MODI22', '2', 'Nowhere'],
        ],
        scoped,
      );
      expect(refused.errors.map((e) => [e.line, e.column, e.code])).toEqual([
        [2, 'gridName', 'gridNotFound'],
        [3, 'gridName', 'gridNotFound'],
      ]);
      const chinese = await importRows(
        t,
        'module',
        [
          ['模块编号', '设备类型', '所属电网', '工作模式'],
          ['MODI23', '4G 芯片', 'RIA', '服务端'],
        ],
        scoped,
      );
      expect(chinese).toMatchObject({ state: 'done', imported: 1 });
      expect(await first<Module>('module', { moduleNo: 'MODI23' })).toMatchObject({
        deviceType: 4,
        workingMode: 'server',
      });
    });
  });

  describe('POCs', () => {
    it('imports a valid file with its consumer, meter and DCU by number', async () => {
      const status = await importRows(
        t,
        'poc',
        [
          ['pocNo', 'nature', 'gridName', 'consumerCode', 'devAddr', 'dcuNo', 'ctRatio', 'registration', 'taskGroupId'],
          ['PI1', 'Consumer', 'RIA', 'cpa01', 'MPA00001', 'DCPA', '50', 'Registered', '3'],
          ['PI2', '3', 'RIA', '', '', '', '', '', ''],
        ],
        admin,
      );
      expect(status).toMatchObject({ state: 'done', imported: 2 });
      expect(await first<Poc>('poc', { pocNo: 'PI1' })).toMatchObject({
        nature: 1,
        consumerCode: 'CPA01',
        devAddr: 'MPA00001',
        dcuNo: 'DCPA',
        ctRatio: 50,
        ptRatio: 1,
        registration: 'registered',
        taskGroupId: 3,
        syncStatus: 0,
      });
      expect(await first<Poc>('poc', { pocNo: 'PI2' })).toMatchObject({ nature: 3, devAddr: '', consumerCode: '' });
    });

    it('writes nothing when rows are bad: one meter per POC, references known, numbers numeric', async () => {
      const before = await archiveCounts(t);
      const status = await importRows(
        t,
        'poc',
        [
          ['pocNo', 'nature', 'gridName', 'consumerCode', 'devAddr', 'ctRatio'],
          ['PI11', '1', 'RIA', '', 'MPA00002', ''],
          ['PI12', '1', 'RIA', '', 'MPA00003', ''],
          ['PI13', '1', 'RIA', '', 'MPA00003', ''],
          ['PI14', '1', 'RIA', 'CNOPE', '', ''],
          ['PI15', '', 'RIA', '', '', 'abc'],
          ['P-16', '1', 'RIA', '', '', ''],
          ['PI17', '1', 'RIA', '', 'MPA00001', ''],
        ],
        admin,
      );
      expect(status.errors).toEqual([
        {
          line: 2,
          column: 'devAddr',
          columnLetter: 'E',
          code: 'meterAtOtherPoc',
          cause: 'This meter already measures another POC: MPA00002',
        },
        {
          line: 4,
          column: 'devAddr',
          columnLetter: 'E',
          code: 'importDuplicateInFile',
          cause: 'The same value appears twice in the file: MPA00003 (line 3)',
        },
        {
          line: 5,
          column: 'consumerCode',
          columnLetter: 'D',
          code: 'consumerNotFound',
          cause: 'The consumer does not exist: CNOPE',
        },
        { line: 6, column: 'nature', columnLetter: 'B', code: 'mandatory', cause: 'This part is mandatory' },
        {
          line: 6,
          column: 'ctRatio',
          columnLetter: 'F',
          code: 'numberFormat',
          cause: 'Digits with an optional decimal part: abc',
        },
        {
          line: 7,
          column: 'pocNo',
          columnLetter: 'A',
          code: 'codeFormat',
          cause: 'Only letters and digits are allowed: P-16',
        },
        // The POC imported above holds it now.
        {
          line: 8,
          column: 'devAddr',
          columnLetter: 'E',
          code: 'meterAtOtherPoc',
          cause: 'This meter already measures another POC: MPA00001',
        },
      ]);
      expect(await archiveCounts(t)).toEqual(before);
    });

    it("refuses a consumer, meter or DCU outside the caller's scope like unknown ones, and reads Chinese headers", async () => {
      const scoped = await loginGridUser(t, 'poc.importer', [gridA], [POC_RES.page, POC_RES.import!]);
      const refused = await importRows(
        t,
        'poc',
        [
          ['pocNo', 'nature', 'gridName', 'consumerCode', 'devAddr', 'dcuNo'],
          ['PI21', '1', 'RIA', 'CPB01', '', ''],
          ['PI22', '1', 'RIA', 'CNOPE', '', ''],
          ['PI23', '1', 'RIA', '', 'MPB00001', ''],
          ['PI24', '1', 'RIA', '', 'MNOPE0001', ''],
          ['PI25', '1', 'RIA', '', '', 'DCPB'],
          ['PI26', '1', 'RIA', '', '', 'DCNOPE'],
        ],
        scoped,
      );
      expect(refused.errors.map((e) => [e.line, e.column, e.code])).toEqual([
        [2, 'consumerCode', 'consumerNotFound'],
        [3, 'consumerCode', 'consumerNotFound'],
        [4, 'devAddr', 'meterNotFound'],
        [5, 'devAddr', 'meterNotFound'],
        [6, 'dcuNo', 'dcuNotFound'],
        [7, 'dcuNo', 'dcuNotFound'],
      ]);
      const chinese = await importRows(
        t,
        'poc',
        [
          ['计量点编号', '计量点性质', '所属电网', '用户编号', '注册状态'],
          ['PI27', '总表', 'RIA', 'CPA01', '已注册'],
        ],
        scoped,
      );
      expect(chinese).toMatchObject({ state: 'done', imported: 1 });
      expect(await first<Poc>('poc', { pocNo: 'PI27' })).toMatchObject({
        nature: 3,
        consumerCode: 'CPA01',
        registration: 'registered',
      });
    });
  });

  describe('DCUs', () => {
    const HLS = '00112233445566778899AABBCCDDEEFF';

    it('imports a valid file and seals every key it carries', async () => {
      const status = await importRows(
        t,
        'dcu',
        [
          [
            'dcuNo',
            'dcuName',
            'supplierName',
            'gridName',
            'llsKey',
            'hlsAuthKey',
            'blacklist',
            'taskEnabled',
            'collectPeriodMinutes',
            'reportPeriodMinutes',
            'taskStart',
            'taskEnd',
          ],
          [
            'DCI1',
            'North DCU',
            'Hexing',
            'RIA',
            'lls-pass',
            HLS.toLowerCase(),
            'mpa00001，MPA00003',
            'yes',
            '15',
            '60',
            '08:00',
            '18:00',
          ],
        ],
        admin,
      );
      expect(status).toMatchObject({ state: 'done', imported: 1 });
      const imported = await first<Dcu>('dcu', { dcuNo: 'DCI1' });
      expect(imported).toMatchObject({
        dcuName: 'North DCU',
        supplierName: 'Hexing',
        gridId: gridA,
        llsKeySet: true,
        hlsAuthKeySet: true,
        hlsEncKeySet: false,
        blacklist: 'MPA00001\nMPA00003',
        taskEnabled: true,
        collectPeriodMinutes: 15,
        reportPeriodMinutes: 60,
        taskStart: '08:00',
        taskEnd: '18:00',
      });
      const [row] = await t.db.select().from(dcu).where(eq(dcu.dcuNo, 'DCI1'));
      expect(JSON.stringify(row)).not.toContain('lls-pass');
      expect(JSON.stringify(row)).not.toMatch(new RegExp(HLS, 'i'));
      const box = new SecretBox(t.secretKey);
      expect(box.open(row?.llsKey as string)).toBe('lls-pass');
      expect(box.open(row?.hlsAuthKey as string)).toBe(HLS);
      expect(row?.hlsEncKey).toBeNull();
      const revealed = await t.call<DcuKeys>('/dcu/reveal', { id: imported.id }, admin);
      expect(revealed.body.data).toEqual({ llsKey: 'lls-pass', hlsAuthKey: HLS, hlsEncKey: '', hlsAuthEncKey: '' });
    });

    it('writes nothing when rows are bad: keys, blacklist, task rules, supplier, number', async () => {
      const before = await t.db.select({ id: dcu.id }).from(dcu);
      const status = await importRows(
        t,
        'dcu',
        [
          ['dcuNo', 'gridName', 'supplierName', 'hlsEncKey', 'blacklist', 'taskEnabled', 'taskStart', 'taskEnd'],
          ['DCI11', 'RIA', '', 'XYZ', '', '', '', ''],
          ['DCI12', 'RIA', '', '', 'MPA00001, MNOPE0001', '', '', ''],
          ['DCI13', 'RIA', '', '', '', 'yes', '', ''],
          ['DCI14', 'RIA', '', '', '', '', '08:00', '08:00'],
          ['DCI15', 'RIA', 'Nobody', '', '', '', '', ''],
          ['DCI1', 'RIA', '', '', '', '', '', ''],
        ],
        admin,
      );
      expect(status.errors).toEqual([
        {
          line: 2,
          column: 'hlsEncKey',
          columnLetter: 'D',
          code: 'hexKey',
          cause: 'Please enter 32 hexadecimal characters: XYZ',
        },
        {
          line: 3,
          column: 'blacklist',
          columnLetter: 'E',
          code: 'meterNotFound',
          cause: 'The meter does not exist: MNOPE0001',
        },
        // A column the file lacks is named by its header in the template, in the user's language.
        {
          line: 4,
          column: 'Collect period (min)',
          columnLetter: '',
          code: 'mandatory',
          cause: 'This part is mandatory',
        },
        {
          line: 5,
          column: 'taskEnd',
          columnLetter: 'H',
          code: 'taskWindowEmpty',
          cause: 'The end time must differ from the start time: 08:00',
        },
        {
          line: 6,
          column: 'supplierName',
          columnLetter: 'C',
          code: 'supplierNotFound',
          cause: 'The supplier does not exist: Nobody',
        },
        { line: 7, column: 'dcuNo', columnLetter: 'A', code: 'existed', cause: 'existed: DCI1' },
      ]);
      expect(await t.db.select({ id: dcu.id }).from(dcu)).toHaveLength(before.length);
    });

    it("refuses a grid node or a blacklisted meter outside the caller's scope, and reads Chinese headers", async () => {
      const scoped = await loginGridUser(t, 'dcu.importer', [gridA], [DCU_RES.page, DCU_RES.import!]);
      const refused = await importRows(
        t,
        'dcu',
        [
          ['dcuNo', 'gridName', 'blacklist'],
          ['DCI21', 'RIB', ''],
          ['DCI22', 'RIA', 'MPB00001'],
          ['DCI23', 'RIA', 'MNOPE0002'],
        ],
        scoped,
      );
      expect(refused.errors.map((e) => [e.line, e.column, e.code])).toEqual([
        [2, 'gridName', 'gridNotFound'],
        [3, 'blacklist', 'meterNotFound'],
        [4, 'blacklist', 'meterNotFound'],
      ]);
      const chinese = await importRows(
        t,
        'dcu',
        [
          ['集中器编号', '所属电网', '供应商', '任务启用', '采集周期（分钟）', '上报周期（分钟）'],
          ['DCI24', 'RIA', 'Hexing', '是', '15', '60'],
        ],
        scoped,
      );
      expect(chinese).toMatchObject({ state: 'done', imported: 1 });
      expect(await first<Dcu>('dcu', { dcuNo: 'DCI24' })).toMatchObject({ supplierName: 'Hexing', taskEnabled: true });
    });
  });
});
