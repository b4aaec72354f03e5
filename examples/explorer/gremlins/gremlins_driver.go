package gremlins

// gremlinsDriverJS is the init script that runs after gremlins.min.js in
// every document of the gremlins' browser context. It unleashes nothing by
// itself: the harness calls window.__agentgraphGremlins.unleash({total, seed,
// delay}) on each page, which makes a horde of gremlins.js's default species
// (clicker, formFiller, toucher, scroller, typer, in that order, uniform
// distribution strategy) and default mogwais (alert, fps, gizmo), seeded
// with new gremlins.Chance(seed). Each species logs its actions; the horde's
// logger counts every "gremlin" line as one real action in sessionStorage
// (which survives the navigations gremlins cause within the origin) and
// stops the horde once total actions were made in all. A followed link, a
// submitted form or a beforeunload stops the horde too, so no action lands
// on a page that is being left.
// Actions are not drawn (showAction off), so the page the collector watches
// is the app's own.
const gremlinsDriverJS = `(() => {
  if (window.top !== window || window.__agentgraphGremlins) return;
  const KEY = '__agentgraph_gremlins';
  const empty = () => ({actions: 0, species: {}, gizmo: 0});
  const load = () => { try { return JSON.parse(sessionStorage.getItem(KEY)) || empty(); } catch (e) { return empty(); } };
  const save = (s) => { try { sessionStorage.setItem(KEY, JSON.stringify(s)); } catch (e) { /* counted in memory only */ } };
  const doc = String(performance.timeOrigin) + ':' + Math.random().toString(36).slice(2);
  let leaving = false, horde = null;
  const leave = () => { leaving = true; if (horde) horde.stop(); };
  addEventListener('beforeunload', leave);
  // A click on a link or a form submission that no handler cancelled leaves
  // the page: stop before the next action (beforeunload comes later, after
  // a timing-dependent number of further actions).
  const navigates = (a) => {
    if (a.target && a.target !== '_self') return false;
    try {
      const u = new URL(a.href, location.href);
      return (u.protocol === 'http:' || u.protocol === 'https:') && (u.href.split('#')[0] !== location.href.split('#')[0] || !u.hash);
    } catch (e) { return false; }
  };
  addEventListener('click', (ev) => {
    const a = ev.target instanceof Element ? ev.target.closest('a[href]') : null;
    if (a && navigates(a)) setTimeout(() => { if (!ev.defaultPrevented) leave(); }, 0);
  });
  addEventListener('submit', (ev) => { setTimeout(() => { if (!ev.defaultPrevented) leave(); }, 0); });
  // A gremlin that throws did nothing: it is not counted and the horde goes on.
  const safe = (make) => (cfg) => { const fn = make(cfg); return () => { try { return fn(); } catch (e) { return undefined; } }; };
  window.__agentgraphGremlins = {
    doc,
    state: () => Object.assign(load(), {doc, leaving, ready: document.readyState, url: location.href, loaded: !!window.gremlins,
      password: !!document.querySelector('input[type=password]')}),
    reset: () => { leaving = false; },
    unleash: async ({total, seed, delay}) => {
      const g = window.gremlins;
      if (!g) return {error: 'gremlins.js is not loaded in this document'};
      // Every horde may make all the actions left; the logger stops it at
      // the total, so where a horde ends depends on the app, not on timing.
      if (leaving || load().actions >= total) return {done: 0, leaving};
      let done = 0;
      const logger = {
        log: (who, name) => {
          // The budget is global: a touch gesture of an earlier horde that
          // logs late counts only while actions are left.
          const s = load();
          if (who !== 'gremlin' || s.actions >= total) return;
          done++;
          const k = String(name).trim().split(/\s+/)[0];
          s.actions++;
          s.species[k] = (s.species[k] || 0) + 1;
          save(s);
          if (s.actions >= total && horde) horde.stop();
        },
        info: () => {},
        warn: (who, name) => {
          if (who === 'mogwai ' && String(name).trim() === 'gizmo') { const s = load(); s.gizmo++; save(s); }
        },
        error: () => {},
      };
      const sp = g.species, off = {log: true, showAction: null};
      horde = g.createHorde({
        species: [sp.clicker(off), sp.formFiller(off), sp.toucher(off), sp.scroller(off), sp.typer(off)].map(safe),
        mogwais: [g.mogwais.alert(), g.mogwais.fps(), g.mogwais.gizmo()],
        strategies: [g.strategies.distribution({nb: total, delay})],
        randomizer: new g.Chance(seed),
        logger,
      });
      try {
        await horde.unleash();
      } catch (e) {
        return {done, leaving, error: String(e)};
      }
      return {done, leaving};
    },
  };
})();`
