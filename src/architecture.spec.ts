import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/*
 * Imports point downward (docs/architecture.md): the folders of src/ form layers, with the media
 * types as the domain's ground and the composition roots (main.ts, cli.ts, app.module.ts, …) on
 * top. Read from the sources' import and export lines, type-only ones included; specs are left
 * out (a spec may reach across to test a seam).
 */

const SRC = __dirname;

function sources(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

const IMPORT = /^(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+)'/gms;

function importsOf(file: string): string[] {
  const targets: string[] = [];
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const base = resolve(dirname(file), specifier);
    const target = [`${base}.ts`, join(base, 'index.ts')].find((path) => {
      try {
        return statSync(path).isFile();
      } catch {
        return false;
      }
    });
    if (target) targets.push(target);
  }
  return targets;
}

const FILES = sources(SRC);
const GRAPH = new Map(FILES.map((file) => [file, importsOf(file)]));

/** `ratings` for src/ratings/…, the file's name for a composition root (src/main.ts). */
function layerOf(file: string): string {
  return relative(SRC, file).split('/')[0];
}

const isRoot = (layer: string) => layer.endsWith('.ts');

/** A cycle of the graph, as its nodes in order, or null. */
function findCycle(edges: Map<string, Iterable<string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'open');
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of edges.keys()) {
    if (!state.has(node)) {
      const cycle = visit(node);
      if (cycle) return cycle;
    }
  }
  return null;
}

const FOLDER_EDGES = new Map<string, Set<string>>();
for (const [file, targets] of GRAPH) {
  const from = layerOf(file);
  for (const target of targets) {
    const to = layerOf(target);
    if (to === from) continue;
    if (!FOLDER_EDGES.has(from)) FOLDER_EDGES.set(from, new Set());
    FOLDER_EDGES.get(from)!.add(to);
  }
}

describe('the import graph of src/', () => {
  it('has no cycle between files', () => {
    const cycle = findCycle(GRAPH);
    expect(cycle?.map((file) => relative(SRC, file)) ?? null).toBeNull();
  });

  it('has no cycle between folders: every import points down a layer', () => {
    expect(findCycle(FOLDER_EDGES)).toBeNull();
  });

  it('has no folder importing a composition root (main.ts, cli.ts, app.module.ts, …)', () => {
    const upward = [...FOLDER_EDGES].flatMap(([from, targets]) =>
      isRoot(from) ? [] : [...targets].filter(isRoot).map((to) => `${from} -> ${to}`),
    );
    expect(upward).toEqual([]);
  });

  it('stands the media types on the ground: they import no feature', () => {
    const below = [...(FOLDER_EDGES.get('media-types') ?? [])];
    expect(below.filter((to) => !['common', 'database'].includes(to))).toEqual([]);
  });

  it('puts the catalog below the ratings (titles are what entries point at)', () => {
    expect(FOLDER_EDGES.get('catalog')?.has('ratings') ?? false).toBe(false);
    expect(FOLDER_EDGES.get('ratings')?.has('catalog')).toBe(true);
  });

  it('reads every folder and its imports (the test sees what it checks)', () => {
    expect(FILES.length).toBeGreaterThan(100);
    expect(FOLDER_EDGES.get('ratings')?.has('media-types')).toBe(true);
  });
});
