/**
 * The x range of the sentiment chart, in seconds. Messages that share one time (a batch sent at
 * once) give an empty range, which uPlot widens by years (three messages sent together drew an
 * axis from February 2027 to August 2029); an hour either side keeps them on a readable axis.
 */
export const PAD_SECONDS = 3600;

export function timeRange(min, max) {
  return max - min < 60 ? [min - PAD_SECONDS, max + PAD_SECONDS] : [min, max];
}
