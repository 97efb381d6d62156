// A change event in SQL as GET /change_event/{id} serves it (api/changes/feed.ts eventItem), over
// `e` (change_event) and `j` (its jurisdiction): what webhook events, alerts and monitors carry.
export const CHANGE_EVENT_JSON = `jsonb_build_object(
  'id', e.id, 'object', 'change_event', 'seq', e.seq, 'kind', e.kind, 'layer', e.layer, 'subject', e.subject,
  'jurisdiction', jsonb_build_object('id', j.id, 'name', j.name, 'href', '/jurisdiction/' || j.id),
  'effective_date', e.effective_date, 'detected_at', to_char(e.detected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'field_path', e.field_path, 'previous', e.previous, 'current', e.current, 'adopted_on', e.adopted_on,
  'ordinance', e.ordinance_id, 'source_version', e.source_version_id, 'href', '/change_event/' || e.id)`;
