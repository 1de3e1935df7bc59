import { PLAN_RES, planApi, RUN_RES, runApi, type Task, taskApi, taskEntity } from '@meterdesk/contracts';
import { defineCrud, type RowAction } from '@/crud/crud-config';
import { CrudDetailPage } from '@/crud/crud-detail';
import { CrudListPage } from '@/crud/crud-list-page';

const live = (row: Task) => row.planStatus === 'waiting' || row.planStatus === 'executing';

const stateAction = (
  key: 'enable' | 'disable' | 'pause' | 'resume',
  permission: string,
  visible: (row: Task) => boolean,
): RowAction<Task> => ({
  key,
  permission,
  visible,
  run: {
    operation: taskApi[key],
    request: (row) => ({ planid: row.id }),
    confirm: `task.confirm.${key}`,
    done: `task.done.${key}`,
    danger: key === 'disable',
  },
});

/** Run now, offered on the list's rows, the task's View page and its runs page (which follows the run). */
export const runNowAction: RowAction<Task> = {
  key: 'runNow',
  permission: RUN_RES.runNow,
  onDetail: true,
  run: {
    operation: runApi.runnow,
    request: (row) => ({ planid: row.id }),
    confirm: 'task.confirm.runNow',
    done: 'runs.runStarted',
  },
};

/**
 * taskMGT's list and view: the task entity's columns, filters and sorting; add and edit open the task
 * form (task-form.page.tsx); each row links to its runs (view/detail), changes its state and runs it now.
 */
export const taskCrud = defineCrud({
  entity: taskEntity,
  pages: { add: PLAN_RES.taskAdd, edit: PLAN_RES.taskEdit, detail: PLAN_RES.taskView },
  operations: {
    list: taskApi.list,
    detail: taskApi.detail,
    create: planApi.createplan,
    update: planApi.updateplan,
    remove: planApi.deleteplan,
    exportFile: taskApi.export,
  },
  remove: { request: (row) => ({ planid: row.id, planName: row.planName }) },
  rowActions: [
    { key: 'runs', permission: PLAN_RES.taskViewDetail, to: (row) => `${PLAN_RES.taskViewDetail}?id=${row.id}` },
    stateAction('enable', PLAN_RES.taskEnable, (row) => !row.enabled && row.planStatus !== 'finished'),
    stateAction('disable', PLAN_RES.taskEnable, (row) => row.enabled),
    stateAction('pause', PLAN_RES.taskPause, (row) => row.enabled && live(row)),
    stateAction('resume', PLAN_RES.taskPause, (row) => row.planStatus === 'paused'),
    runNowAction,
  ],
});

export const TaskListPage = () => <CrudListPage crud={taskCrud} />;
export const TaskViewPage = () => <CrudDetailPage crud={taskCrud} />;
