/**
 * Praise by a negated comparison (dev27): the negator raises the praise to the top, where the
 * lexicons and the denial rule read a denial. Used by the praise idioms (praise.ts) and kept out of
 * the denials (denials.ts deniedPraise).
 */

/** Praise words a negated comparison or a "never … so" raises to the top. */
const PRAISE_ADJ =
  '(?:quick|fast|friendly|helpful|smooth|reliable|good|great|kind|efficient|easy|clean|tasty|professional|responsive|generous|welcoming|comfortable|polite|courteous|attentive|thorough|accurate|delicious|fresh|simple|intuitive|seamless|speedy|prompt|knowledgeable)';
const COMPARATIVE =
  '(?:better|friendlier|nicer|faster|quicker|smoother|kinder|cleaner|tastier|easier|cheaper|more (?:helpful|reliable|friendly|professional|welcoming|comfortable|efficient|generous|knowledgeable))';
/**
 * The forms, as a regular expression's source: "there's no better breakfast in town", "you won't find
 * friendlier staff", "nobody does it better", "never seen a team so quick", "I don't think I've ever
 * had such smooth service".
 */
export const BY_COMPARISON = `(?:there['’]?s|there is|there are) no ${COMPARATIVE}|(?:won['’]?t|will not|can['’]?t|cannot|could(?:n['’]?t| not)) find (?:a |an |any )?${COMPARATIVE}|(?:nobody|no one|no-one) (?:does|do|did|makes?|made|bakes?|cooks?|serves?|runs?)\\b[^.!?]{0,30}\\bbetter|never (?:seen|had|met|known|used|tried|experienced|found|been to)\\b[^.!?,]{0,30}\\b(?:so|this|as|such|more) (?:a |an )?${PRAISE_ADJ}|(?:don['’]?t|do not) think (?:i|we)(?:['’]ve| have) ever (?:had|seen|met|used|tried|been to)\\b[^.!?]{0,20}\\b(?:such|so|this|as) (?:a |an )?${PRAISE_ADJ}`;
