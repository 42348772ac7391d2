import { html } from 'htm/preact';
import { useEffect, useState, useCallback } from 'preact/hooks';
import { NEGATIVE_THRESHOLD } from '../src/profiles/aggregates.ts';
import { Visible } from './visible.js';

/**
 * Loads something and re-loads when `deps` change: `{ data, error, loading, reload }`. The last
 * request wins: an older answer arriving late does not overwrite a newer one.
 */
export function useLoad(load, deps) {
  const [state, setState] = useState({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState({ error, loading: false }),
    );
    return () => (live = false);
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** An API error in words, announced to screen readers (it may quote a value the tenant sent). */
export function ErrorNote({ error }) {
  if (!error) return null;
  const where = error.field ? html` <span class="field">(<${Visible} text=${error.field} />)</span>` : '';
  return html`<p class="error" role="alert"><${Visible} text=${error.message} />${where}</p>`;
}

export function Loading({ what = '' }) {
  return html`<p class="muted" role="status">Loading${what ? ` ${what}` : ''}…</p>`;
}

export const fmt = {
  /** -1..1 with a sign, two decimals. */
  sentiment: (x) => (x > 0 ? '+' : '') + Number(x).toFixed(2),
  pct: (x) => `${Math.round(Number(x) * 100)}%`,
  score: (x) => Number(x).toFixed(2),
  time: (iso) => (iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' }) : '—'),
  label: (s) => String(s).replace(/_/g, ' '),
};

/**
 * The tone of a sentiment value, in words as well as colour (colour is never the only cue):
 * negative where the server counts a message as negative, positive symmetrically.
 */
export function tone(x) {
  if (x <= NEGATIVE_THRESHOLD) return { cls: 'neg', word: 'negative' };
  if (x >= -NEGATIVE_THRESHOLD) return { cls: 'pos', word: 'positive' };
  return { cls: 'neu', word: 'neutral' };
}

/** Chips for labels (topics, intentions). */
export function Chips({ items, kind }) {
  if (!items || items.length === 0) return html`<span class="muted">none</span>`;
  return html`<ul class="chips" aria-label=${kind}>
    ${items.map((t) => html`<li class=${`chip ${kind}`}>${fmt.label(t)}</li>`)}
  </ul>`;
}

/** Offset paging with the exact total: "21–40 of 1,234", previous and next. */
export function Pager({ offset, limit, total, onChange, label }) {
  // A list that shrank under the page on screen (members re-evaluated, profiles deleted): back to
  // its last page rather than an empty one (the first, when it is empty).
  useEffect(() => {
    if (offset > 0 && offset >= total) onChange(Math.max(0, Math.floor((total - 1) / limit) * limit));
  }, [offset, limit, total]);
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  return html`<nav class="pager" aria-label=${label}>
    <button type="button" disabled=${offset === 0} onClick=${() => onChange(Math.max(0, offset - limit))}>
      Previous
    </button>
    <span role="status"
      >${first.toLocaleString('en')}–${last.toLocaleString('en')} of ${total.toLocaleString('en')}</span
    >
    <button type="button" disabled=${last >= total} onClick=${() => onChange(offset + limit)}>Next</button>
  </nav>`;
}
