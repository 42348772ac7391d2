import { html } from 'htm/preact';
import { SCOPES } from '../src/auth/scopes.ts';
import { can } from './api.js';
import { Visible } from './visible.js';

/**
 * What the key in use lets the console show (issue 48). A section is listed only when the key
 * holds a scope it reads with (`needs`: any one of them); a control that changes something is
 * shown only when the key holds the scope the API checks for it. Hiding is a courtesy to the
 * user: the API refuses the call either way.
 */
export const SECTIONS = [
  { id: 'profiles', label: 'Profiles', needs: ['profiles:read'] },
  { id: 'segments', label: 'Segments', needs: ['segments:read'] },
  { id: 'webhooks', label: 'Webhooks', needs: ['webhooks:read'] },
  { id: 'labels', label: 'Labels', needs: ['labels:read'] },
  // Renaming needs `projects` and the erasure trail `privacy` (retention both): either gives the page something.
  { id: 'settings', label: 'Settings', needs: ['projects', 'privacy'] },
  { id: 'keys', label: 'API keys', needs: ['keys'] },
];

export const allowed = (section) => section.needs.some(can);

/** The sections the key may open, in the order of the navigation. */
export const allowedSections = () => SECTIONS.filter(allowed);

const READ_SCOPES = SECTIONS.flatMap((s) => s.needs)
  .filter((s) => s.endsWith(':read'))
  .join(', ');

const quoted = (scopes) => scopes.map((s) => `“${s}”`).join(' or ');

/** A page the key cannot open, named by its hash: which scope it lacks, not a page of errors. */
export function LacksScope({ section }) {
  return html`<section aria-labelledby="lacks-h">
    <h1 id="lacks-h">${section.label}</h1>
    <p class="note">
      This key lacks the scope ${quoted(section.needs)} that the ${section.label} page needs. Ask whoever manages your
      API keys for a key that holds it.
    </p>
  </section>`;
}

/** A key with no scope that reads anything here (an ingest key): what it is for instead. */
export function NothingToShow() {
  return html`<section aria-labelledby="nothing-h">
    <h1 id="nothing-h">Nothing to show with this key</h1>
    <p>
      ${
        can('ingest')
          ? html`This key can submit batches of users (scope <code>ingest</code>) but not read anything here.`
          : 'This key holds no scope that this console reads with.'
      }${' '}
      To see profiles, segments, webhooks or labels, use a key that holds one of the scopes ${READ_SCOPES}.
    </p>
  </section>`;
}

/**
 * Where a page leaves out what the key cannot change: says so, and which scope would allow it,
 * so a missing button does not read as a fault.
 */
export function ReadOnlyNote({ lacks, what }) {
  return html`<p class="muted small read-only">
    Read only: ${what} needs the scope <code>${lacks}</code>, which this key lacks.
  </p>`;
}

/** The header's reminder of the key in use: its name, and its scopes in brief (each of them on hover). */
export function KeyBadge({ me }) {
  const scopes = me.scopes;
  const brief =
    scopes.length === SCOPES.length ? 'all scopes' : scopes.length <= 3 ? scopes.join(', ') : `${scopes.length} scopes`;
  return html`<span class="key-badge" title=${`Scopes: ${scopes.join(', ')}`}>
    Key <strong><${Visible} text=${me.name} /></strong> <span class="muted">(${brief})</span>
  </span>`;
}
