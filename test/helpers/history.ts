// Builds a Temporal workflow history (proto JSON, as the CLI exports it) from the steps an
// in-process run took, so Worker.runReplayHistory can check the bundled workflow code makes
// exactly the same commands: same activities, same children, same order.
type Step =
  | { kind: 'activity'; name: string; args: unknown[]; result: unknown; failure?: { message: string; type: string } }
  | { kind: 'child'; workflowType: string; workflowId: string; args: unknown[]; result: unknown }
  | { kind: 'timer'; ms: number };

const b64 = (s: string) => Buffer.from(s).toString('base64');
const payloads = (values: unknown[]) => ({
  payloads: values.map((v) => (v === undefined ? { metadata: { encoding: b64('binary/null') } } : { metadata: { encoding: b64('json/plain') }, data: b64(JSON.stringify(v)) })),
});

export function buildHistory(workflowType: string, args: unknown[], steps: Step[], result: unknown, taskQueue = 'landlex') {
  const events: Record<string, unknown>[] = [];
  let time = Date.parse('2026-01-01T00:00:00Z');
  const push = (type: string, attrsKey: string, attrs: Record<string, unknown>) => {
    const eventId = String(events.length + 1);
    time += 1000;
    events.push({ eventId, eventTime: new Date(time).toISOString(), eventType: type, [attrsKey]: attrs });
    return eventId;
  };
  const tq = { name: taskQueue, kind: 'TASK_QUEUE_KIND_NORMAL' };
  const workflowTask = () => {
    const scheduled = push('EVENT_TYPE_WORKFLOW_TASK_SCHEDULED', 'workflowTaskScheduledEventAttributes', { taskQueue: tq, startToCloseTimeout: '10s', attempt: 1 });
    const started = push('EVENT_TYPE_WORKFLOW_TASK_STARTED', 'workflowTaskStartedEventAttributes', { scheduledEventId: scheduled, identity: 'replay', requestId: `r${scheduled}` });
    return push('EVENT_TYPE_WORKFLOW_TASK_COMPLETED', 'workflowTaskCompletedEventAttributes', { scheduledEventId: scheduled, startedEventId: started, identity: 'replay' });
  };

  push('EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', 'workflowExecutionStartedEventAttributes', {
    workflowType: { name: workflowType },
    taskQueue: tq,
    input: payloads(args),
    workflowExecutionTimeout: '0s',
    workflowRunTimeout: '0s',
    workflowTaskTimeout: '10s',
    originalExecutionRunId: 'run-1',
    firstExecutionRunId: 'run-1',
    attempt: 1,
    identity: 'replay',
  });
  let completed = workflowTask();
  let activitySeq = 0;
  let childSeq = 0;
  let timerSeq = 0;
  for (const step of steps) {
    if (step.kind === 'timer') {
      timerSeq++;
      const started = push('EVENT_TYPE_TIMER_STARTED', 'timerStartedEventAttributes', {
        timerId: String(timerSeq),
        startToFireTimeout: `${Math.ceil(step.ms / 1000)}s`,
        workflowTaskCompletedEventId: completed,
      });
      push('EVENT_TYPE_TIMER_FIRED', 'timerFiredEventAttributes', { timerId: String(timerSeq), startedEventId: started });
      completed = workflowTask();
    } else if (step.kind === 'activity') {
      activitySeq++;
      const scheduled = push('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', 'activityTaskScheduledEventAttributes', {
        activityId: String(activitySeq),
        activityType: { name: step.name },
        taskQueue: tq,
        input: payloads(step.args),
        scheduleToCloseTimeout: '0s',
        scheduleToStartTimeout: '0s',
        startToCloseTimeout: '60s',
        heartbeatTimeout: '0s',
        workflowTaskCompletedEventId: completed,
      });
      const started = push('EVENT_TYPE_ACTIVITY_TASK_STARTED', 'activityTaskStartedEventAttributes', { scheduledEventId: scheduled, identity: 'replay', requestId: `a${scheduled}`, attempt: 1 });
      if (step.failure) {
        push('EVENT_TYPE_ACTIVITY_TASK_FAILED', 'activityTaskFailedEventAttributes', {
          failure: { message: step.failure.message, source: 'TypeScriptSDK', applicationFailureInfo: { type: step.failure.type, nonRetryable: true } },
          scheduledEventId: scheduled,
          startedEventId: started,
          identity: 'replay',
          retryState: 'RETRY_STATE_NON_RETRYABLE_FAILURE',
        });
      } else {
        push('EVENT_TYPE_ACTIVITY_TASK_COMPLETED', 'activityTaskCompletedEventAttributes', { result: payloads([step.result]), scheduledEventId: scheduled, startedEventId: started, identity: 'replay' });
      }
      completed = workflowTask();
    } else {
      childSeq++;
      const execution = { workflowId: step.workflowId, runId: `child-${childSeq}` };
      const initiated = push('EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED', 'startChildWorkflowExecutionInitiatedEventAttributes', {
        namespace: 'default',
        workflowId: step.workflowId,
        workflowType: { name: step.workflowType },
        taskQueue: tq,
        input: payloads(step.args),
        workflowTaskCompletedEventId: completed,
        parentClosePolicy: 'PARENT_CLOSE_POLICY_TERMINATE',
        workflowIdReusePolicy: 'WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE',
      });
      const started = push('EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED', 'childWorkflowExecutionStartedEventAttributes', {
        namespace: 'default',
        initiatedEventId: initiated,
        workflowExecution: execution,
        workflowType: { name: step.workflowType },
      });
      completed = workflowTask();
      push('EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED', 'childWorkflowExecutionCompletedEventAttributes', {
        result: payloads([step.result]),
        namespace: 'default',
        workflowExecution: execution,
        workflowType: { name: step.workflowType },
        initiatedEventId: initiated,
        startedEventId: started,
      });
      completed = workflowTask();
    }
  }
  push('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED', 'workflowExecutionCompletedEventAttributes', { result: payloads([result]), workflowTaskCompletedEventId: completed });
  return { events };
}

export type { Step };
