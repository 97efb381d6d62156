// The text of an alert's email: the changes it matched, one short block each (pure).

/** A change event as the feed serves it (the fields a mail reads). */
export interface FeedEvent {
  id: string;
  seq: number;
  kind: string;
  layer: string;
  field_path: string;
  jurisdiction: { id: string; name: string };
  effective_date: string | null;
  previous: unknown;
  current: unknown;
}

export interface AlertMail {
  alert: { id: string; name: string; timezone: string };
  events: FeedEvent[];
  /** a digest: the period it covers up to, and how often */
  digest: { periodEnd: Date; every: string } | null;
}

/** Events listed in one mail; the rest are counted, and all are in the alert's match log. */
export const MAIL_EVENTS = 50;
const VALUE_CHARS = 160;

function value(v: unknown): string {
  if (v === null || v === undefined) return 'none';
  const s = JSON.stringify(v);
  return s.length > VALUE_CHARS ? `${s.slice(0, VALUE_CHARS)}…` : s;
}

function localTime(at: Date, tz: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: tz, dateStyle: 'medium', timeStyle: 'short' }).format(at);
}

export function alertMail(m: AlertMail): { subject: string; text: string } {
  const n = m.events.length;
  const changes = `${n} change${n === 1 ? '' : 's'}`;
  const subject = m.digest ? `Landlex alert "${m.alert.name}": ${m.digest.every === 'week' ? 'weekly' : 'daily'} digest, ${changes}` : `Landlex alert "${m.alert.name}": ${changes} in the law`;
  const head = m.digest
    ? `Your alert "${m.alert.name}" (${m.alert.id}) matched ${changes} up to ${localTime(m.digest.periodEnd, m.alert.timezone)} (${m.alert.timezone}):`
    : `Your alert "${m.alert.name}" (${m.alert.id}) matched ${changes} in the change feed:`;
  const blocks = m.events.slice(0, MAIL_EVENTS).map((e) =>
    [
      `* seq ${e.seq}: ${e.jurisdiction.name}, ${e.layer} ${e.kind.replace('_', ' ')}, ${e.field_path}`,
      `  was ${value(e.previous)}`,
      `  now ${value(e.current)}`,
      `  effective ${e.effective_date ?? 'not stated'}; GET /change_event/${e.id}`,
    ].join('\n'),
  );
  const more = n > MAIL_EVENTS ? [`and ${n - MAIL_EVENTS} more.`] : [];
  const text = [head, '', ...blocks, ...more, '', `Every match and what was sent: GET /alert/${m.alert.id}/match`].join('\n');
  return { subject, text };
}
