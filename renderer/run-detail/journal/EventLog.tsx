import { useMemo, useState } from 'react';
import type { HivewatchEvent, JournaledEvent } from '../../../core/service/api.js';
import { useShortcuts } from '../../app/keyboard.js';
import { prefixOffsets } from '../../components/window-math.js';
import { VirtualList } from '../../components/VirtualList.js';
import { formatAbsolute, formatDuration } from '../../lib/format.js';
import { chipTones, describeEvent, eventJson, eventTone, typeCounts } from './event-summary.js';

const ROW = 30;
const LINE = 17;
const MAX_LINES = 28;

type EventType = HivewatchEvent['type'];

/**
 * When an event happened: "+1.2s" of wall time since the run started, the wall time itself on
 * hover; a virtual-clock run's own clock (which jumps over backoffs) is in the tooltip too.
 */
function eventTimes(e: JournaledEvent, first: JournaledEvent | undefined, virtual: boolean): { offset: string; title: string } {
  const offset = `+${formatDuration(e.wall - (first?.wall ?? e.wall))}`;
  const title = `${formatAbsolute(e.wall)}${virtual ? `\nrun clock: virtual +${formatDuration(e.ts - (first?.ts ?? e.ts))}` : ''}`;
  return { offset, title };
}

/** A copy of `set` with `item` added, or removed when it was there. */
function toggled<T>(set: ReadonlySet<T>, item: T): ReadonlySet<T> {
  const next = new Set(set);
  if (next.has(item)) next.delete(item);
  else next.add(item);
  return next;
}

interface EventTypeFilterProps {
  counts: readonly (readonly [EventType, number])[];
  tones: ReadonlyMap<EventType, string>;
  hidden: ReadonlySet<EventType>;
  setHidden: (update: ReadonlySet<EventType> | ((prev: ReadonlySet<EventType>) => ReadonlySet<EventType>)) => void;
  follow: boolean;
  setFollow: (follow: boolean) => void;
}

/** The event types as chips (click: show or hide; double-click: only this one), and "follow new events". */
function EventTypeFilter({ counts, tones, hidden, setHidden, follow, setFollow }: EventTypeFilterProps) {
  const only = (type: EventType): void => setHidden(new Set(counts.map(([t]) => t).filter((t) => t !== type)));
  return (
    <div className="event-filter" role="group" aria-label="Filter events by type">
      {counts.map(([type, n]) => (
        <button
          key={type}
          type="button"
          className={`chip tone-${tones.get(type) ?? 'info'}${hidden.has(type) ? '' : ' on'}`}
          aria-pressed={!hidden.has(type)}
          onClick={() => setHidden((prev) => toggled(prev, type))}
          onDoubleClick={() => only(type)}
          title="Click to show or hide; double-click to show only this type"
        >
          {type}
          <span className="chip-count">{n}</span>
        </button>
      ))}
      {hidden.size > 0 && (
        <button type="button" className="link" onClick={() => setHidden(new Set())}>
          Show all
        </button>
      )}
      <label className="follow">
        <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} /> Follow new events
      </label>
    </div>
  );
}

/**
 * The run's journal, virtualized: a line per event, filterable by type; a click (or Enter on
 * the selected line) expands the event as JSON.
 */
export function EventLog({ events, version, virtual }: { events: readonly JournaledEvent[]; version: number; virtual: boolean }) {
  const [hidden, setHidden] = useState<ReadonlySet<EventType>>(new Set());
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(new Set());
  const [cursor, setCursor] = useState(-1);
  const [follow, setFollow] = useState(false);

  const counts = useMemo(() => typeCounts(events), [events, version]);
  const tones = useMemo(() => chipTones(events), [events, version]);
  const shown = useMemo(() => (hidden.size === 0 ? events.slice() : events.filter((e) => !hidden.has(e.type))), [events, version, hidden]);
  const json = useMemo(() => {
    const map = new Map<number, ReturnType<typeof eventJson>>();
    for (const seq of expanded) {
      const e = events.find((x) => x.seq === seq);
      if (e) map.set(seq, eventJson(e));
    }
    return map;
  }, [expanded, events, version]);
  const offsets = useMemo(
    () => prefixOffsets(shown.map((e) => ROW + (json.has(e.seq) ? Math.min(json.get(e.seq)?.lines ?? 0, MAX_LINES) * LINE + 16 : 0))),
    [shown, json],
  );

  const toggle = (seq: number): void => setExpanded((prev) => toggled(prev, seq));

  useShortcuts({
    j: () => setCursor((c) => Math.min(shown.length - 1, c + 1)),
    k: () => setCursor((c) => Math.max(0, c - 1)),
    Enter: () => {
      const e = shown[cursor];
      if (e) toggle(e.seq);
    },
  });

  const ensure = follow && shown.length > 0 ? shown.length - 1 : cursor >= 0 ? cursor : null;

  return (
    <div className="event-log">
      <EventTypeFilter counts={counts} tones={tones} hidden={hidden} setHidden={setHidden} follow={follow} setFollow={setFollow} />
      {shown.length === 0 ? (
        <p className="muted">{events.length === 0 ? 'No events yet.' : 'No events of the chosen types.'}</p>
      ) : (
        <VirtualList
          count={shown.length}
          offsets={offsets}
          ensureVisible={ensure}
          className="event-rows"
          height={Math.min(420, (offsets[offsets.length - 1] ?? 0) + 2)}
          role="list"
          ariaLabel="Events"
          testId="event-log"
          renderRow={(index, top, height) => {
            const e = shown[index] as JournaledEvent;
            const open = json.get(e.seq);
            const times = eventTimes(e, events[0], virtual);
            return (
              <div
                key={e.seq}
                role="listitem"
                aria-setsize={shown.length}
                aria-posinset={index + 1}
                className={`event-row tone-${eventTone(e)}${index === cursor ? ' selected' : ''}${open ? ' open' : ''}`}
                style={{ top, height }}
                data-seq={e.seq}
                data-type={e.type}
              >
                <button
                  type="button"
                  className="event-line"
                  aria-expanded={open !== undefined}
                  onClick={() => {
                    setCursor(index);
                    toggle(e.seq);
                  }}
                >
                  <span className="event-seq mono">#{e.seq}</span>
                  <span className="event-time mono" title={times.title}>
                    {times.offset}
                  </span>
                  <span className="event-type">{e.type}</span>
                  <span className="event-text">{describeEvent(e)}</span>
                  <span className="event-toggle" aria-hidden="true">
                    {open ? '▾' : '▸'}
                  </span>
                </button>
                {open && <pre className="json event-json">{open.text}</pre>}
              </div>
            );
          }}
        />
      )}
    </div>
  );
}
