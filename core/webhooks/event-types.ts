// Webhook event types (spec 6.2): ping, the records a monitor watches for, one type per layer and
// kind of change the pipeline writes to the change feed, what a monitor sees of the law at its
// places, and an alert's notice. GET /event_type lists these.
export interface EventType {
  name: string;
  description: string;
}

/** The change feed's (layer, kind) pairs the pipeline writes (store/load: districts, code text, ordinances, maps). */
export const FEED_TYPES: Array<{ layer: string; kind: string; description: string }> = [
  { layer: 'district', kind: 'adoption', description: 'A district, section, permission, control, ordinance or moratorium is adopted: a rule that was not in the law is' },
  { layer: 'district', kind: 'amendment', description: 'A field of a rule changes: a permission level, a dimensional value, a section text' },
  { layer: 'district', kind: 'repeal', description: 'A rule leaves the law' },
  { layer: 'district_map', kind: 'map_change', description: "A base district's mapped area changes on the zoning map (a rezoning)" },
  { layer: 'overlay', kind: 'map_change', description: "An overlay district's mapped area changes on the map" },
];

/** The feed's type names; store/webhooks/outbox.ts writes the same in SQL ('law.' || layer || '.' || kind). */
const feedTypeName = (layer: string, kind: string) => `law.${layer}.${kind}`;

export const EVENT_TYPES: EventType[] = [
  { name: 'ping', description: 'A test delivery, sent by POST /webhook/{webhook}/delivery' },
  { name: 'permit.created', description: "A permit filed on a place of a monitored list is published (the item's filter applied to the permit's parcels)" },
  { name: 'case.created', description: "A case (board or hearing matter) filed on a place of a monitored list is published (the item's filter applied)" },
  ...FEED_TYPES.map((t) => ({ name: feedTypeName(t.layer, t.kind), description: `${t.description}. Every change event of this layer and kind, with its seq (the whole feed, as GET /change_event)` })),
  { name: 'monitor.parcel.rezoned', description: 'The zoning map changes at a parcel of a monitored list: a base or overlay district is drawn onto or off it' },
  { name: 'monitor.rule.amended', description: 'A rule of a district that applies at a parcel of a monitored list is adopted, amended or repealed' },
  { name: 'alert.triggered', description: "A change event matches an alert's predicate (sent to the alert's webhook channels)" },
];

export const EVENT_TYPE_NAMES = EVENT_TYPES.map((t) => t.name);
