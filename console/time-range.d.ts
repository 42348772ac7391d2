// Types of time-range.js for the unit test that imports it (the console itself is plain JavaScript).
export declare const PAD_SECONDS: number;
export declare function timeRange(min: number, max: number): [number, number];
