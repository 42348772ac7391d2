import { render } from 'preact';
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { api, session, ApiError, whenUnauthenticated } from './api.js';
import { ErrorNote, Loading, useLoad } from './ui.js';
import { KeyBadge, LacksScope, NothingToShow, SECTIONS, allowed, allowedSections } from './access.js';
import { KeysPage } from './keys.js';
import { visibleText } from './visible.js';
import { ProfileList, ProfilePage } from './profiles.js';
import { SegmentList, SegmentPage } from './segments.js';
import { WebhookList, WebhookPage } from './webhooks.js';
import { ProjectSettings } from './settings.js';
import { LabelList, LabelPage } from './labels.js';

/**
 * The page from the URL's hash: `#/profiles`, `#/profiles/<user id>`, `#/segments/<id>`, … An
 * empty hash is `['']`: the first section the key may open, which depends on the key.
 */
function useRoute() {
  const decode = (part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part; // a malformed escape in a hand-typed URL: shown as typed, never a blank page
    }
  };
  const read = () => location.hash.replace(/^#\/?/, '').split('/').map(decode);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

function KeyForm({ onKey, reason }) {
  const [error, setError] = useState(reason);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const key = new FormData(e.currentTarget).get('key').trim();
    setBusy(true);
    try {
      // The key's own view: proves the key works (any key may read it) and says what it may do.
      const me = await api('GET', '/api/v1/api-keys/current', { key });
      session.setKey(key);
      session.setCurrent(me);
      onKey(key, me);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? new Error('This key is not valid.') : err);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="signin">
    <h1>Semantic profiling console</h1>
    <p>
      Paste an API key of your tenant. It is kept in this tab only (sessionStorage) and sent as
      <code>X-API-Key</code> to the same JSON API your systems use.
    </p>
    <form onSubmit=${submit}>
      <label for="key">API key</label>
      <input id="key" name="key" type="password" autocomplete="off" required spellcheck=${false} />
      <button type="submit" disabled=${busy}>Open the console</button>
    </form>
    <${ErrorNote} error=${error} />
  </main>`;
}

/** The project and pipeline every page works in, remembered for the tab. */
function PlacePicker({ place, setPlace }) {
  const projects = useLoad(() => api('GET', '/api/v1/projects'), []);
  // A project renamed on the Settings page (settings.js): its new name here too.
  useEffect(() => {
    window.addEventListener('projects-changed', projects.reload);
    return () => window.removeEventListener('projects-changed', projects.reload);
  }, []);
  // The answer names its project: while another project's list is still shown, nothing is picked from it.
  const pipelines = useLoad(
    async () =>
      place.project
        ? { project: place.project, ...(await api('GET', `/projects/${place.project}/pipelines`)) }
        : { project: undefined, pipelines: [] },
    [place.project],
  );
  const list = projects.data?.projects ?? [];
  const current = pipelines.data?.project === place.project ? pipelines.data : undefined;
  const pls = current?.pipelines ?? [];
  useEffect(() => {
    if (list.length && !list.some((p) => p.id === place.project)) setPlace({ project: list[0].id });
  }, [list.length, place.project]);
  useEffect(() => {
    // A pipeline of this project, or none: never one remembered from another project.
    if (current && !pls.some((p) => p.id === place.pipeline))
      setPlace({ project: place.project, pipeline: pls[0]?.id });
  }, [current, place.pipeline]);
  return html`<div class="place">
    <label for="project">Project</label>
    <select
      id="project"
      value=${place.project ?? ''}
      onChange=${(e) => setPlace({ project: Number(e.currentTarget.value) })}
    >
      ${list.length === 0 && html`<option value="">no project</option>`}
      ${list.map((p) => html`<option value=${p.id}>${visibleText(p.name)}</option>`)}
    </select>
    <label for="pipeline">Pipeline</label>
    <select
      id="pipeline"
      value=${place.pipeline ?? ''}
      onChange=${(e) => setPlace({ ...place, pipeline: Number(e.currentTarget.value) })}
    >
      ${pls.length === 0 && html`<option value="">no pipeline</option>`}
      ${pls.map((p) => html`<option value=${p.id}>${visibleText(p.name)}</option>`)}
    </select>
    <${ErrorNote} error=${projects.error || pipelines.error} />
  </div>`;
}

function Page({ route, place, me, erased, setErased }) {
  const [asked, id, sub] = route;
  const section = asked || allowedSections()[0]?.id;
  if (!section) return html`<${NothingToShow} />`;
  const known = SECTIONS.find((s) => s.id === section);
  if (known && !allowed(known)) return html`<${LacksScope} section=${known} />`;
  if (!place.project) return html`<${Loading} what="projects" />`;
  if (section === 'keys') return html`<${KeysPage} place=${place} me=${me} />`;
  if (section === 'profiles') {
    // Erased: the profile is gone, so its page is left for the list, which says what was removed.
    const onErased = (erasure, userId) => {
      setErased({ erasure, userId });
      location.hash = '#/profiles';
    };
    return id
      ? html`<${ProfilePage} key=${id} place=${place} userId=${id} onErased=${onErased} />`
      : html`<${ProfileList} place=${place} erased=${erased} onDismiss=${() => setErased(undefined)} />`;
  }
  if (section === 'settings') return html`<${ProjectSettings} key=${place.project} place=${place} />`;
  // Labels belong to the project, not to a pipeline.
  if (section === 'labels')
    return id
      ? html`<${LabelPage} key=${`${place.project}/${id}`} place=${place} name=${id} />`
      : html`<${LabelList} key=${place.project} place=${place} />`;
  if (!place.pipeline) return html`<p>This project has no pipeline yet: segments and webhooks live in a pipeline.</p>`;
  if (section === 'segments')
    return id
      ? html`<${SegmentPage} key=${id} place=${place} segmentId=${id} />`
      : html`<${SegmentList} place=${place} />`;
  if (section === 'webhooks')
    return id
      ? html`<${WebhookPage} key=${id} place=${place} webhookId=${Number(id)} eventId=${sub} />`
      : html`<${WebhookList} place=${place} />`;
  return html`<p>No such page. <a href="#/">The first page</a></p>`;
}

/**
 * What the stored key may do, read once per page load (a reload forgets it: memory only). A 401
 * signs out through api.js; another failure is shown with a way to try again.
 */
function useCurrentKey(key) {
  const [me, setMe] = useState(session.current());
  const [error, setError] = useState();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!key || me) return undefined;
    let live = true;
    setError(undefined);
    api('GET', '/api/v1/api-keys/current').then(
      (view) => live && (session.setCurrent(view), setMe(view)),
      (err) => live && !(err instanceof ApiError && err.status === 401) && setError(err),
    );
    return () => (live = false);
  }, [key, me, tick]);
  return { me, setMe, error, retry: () => setTick((t) => t + 1) };
}

function App() {
  const [key, setKey] = useState(session.key());
  const { me, setMe, error: meError, retry } = useCurrentKey(key);
  const [place, setPlaceState] = useState(session.place());
  const [reason, setReason] = useState();
  const [erased, setErased] = useState();
  const route = useRoute();
  // The note of an erasure stays on the profile list it was shown on, no longer.
  const where = route.join('/');
  useEffect(() => {
    if (where !== 'profiles') setErased(undefined);
  }, [where]);
  const setPlace = (p) => {
    session.setPlace(p);
    setPlaceState(p);
  };
  const forget = (why) => {
    session.clear();
    setKey(null);
    setMe(null);
    setPlaceState({});
    setReason(why);
  };
  whenUnauthenticated(() => forget(new Error('The key stopped working (revoked?): paste a valid one.')));
  if (!key)
    return html`<${KeyForm} onKey=${(k, view) => (setReason(undefined), setMe(view), setKey(k))} reason=${reason} />`;
  if (!me)
    return html`<main class="signin">
      ${meError ? html`<${ErrorNote} error=${meError} />` : html`<${Loading} what="the key" />`}
      ${
        meError &&
        html`<div class="actions">
          <button type="button" onClick=${retry}>Try again</button>
          <button type="button" class="secondary" onClick=${() => forget()}>Forget the key</button>
        </div>`
      }
    </main>`;
  const section = route[0] || allowedSections()[0]?.id;
  return html`<div class="shell">
    <a class="skip" href="#main">Skip to content</a>
    <header>
      <span class="brand">Profiling console</span>
      ${
        allowedSections().length > 0 &&
        html`<nav aria-label="Sections">
          ${allowedSections().map(
            (s) => html`<a href=${`#/${s.id}`} aria-current=${section === s.id ? 'page' : undefined}>${s.label}</a>`,
          )}
        </nav>`
      }
      <${PlacePicker} place=${place} setPlace=${setPlace} />
      <${KeyBadge} me=${me} />
      <button type="button" class="link" onClick=${() => forget()}>Forget the key</button>
    </header>
    <main id="main" tabindex="-1">
      <${Page} route=${route} place=${place} me=${me} erased=${erased} setErased=${setErased} />
    </main>
  </div>`;
}

const root = document.getElementById('app');
root.textContent = ''; // the "Loading" placeholder of index.html: render adds, it does not replace
render(html`<${App} />`, root);
