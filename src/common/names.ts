// Suggestions for a mistyped name (a fault, a case, a tool): the known names closest to it.

/** Levenshtein distance (small strings only: names). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Known names closest to `name`: within a third of its length, or sharing a word, best first (at most 3). */
export function closestNames(name: string, known: Iterable<string>): string[] {
  const words = new Set(name.split('-').filter((w) => w.length > 2));
  const scored: { name: string; distance: number }[] = [];
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    const sharesWord = candidate.split('-').some((w) => words.has(w));
    if (distance <= Math.max(2, Math.floor(name.length / 3)) || sharesWord) scored.push({ name: candidate, distance });
  }
  scored.sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name));
  return scored.slice(0, 3).map((s) => s.name);
}
