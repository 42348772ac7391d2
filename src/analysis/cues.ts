import { lexiconScore } from './lexicon.js';

/**
 * Domain cues the sentence embedding is blind to: a general-purpose encoder puts "invoice",
 * "Zapier" or "SSO" near many things, while in SaaS feedback each of them names one area. Written
 * from general knowledge of how customers write about software (not from any evaluation set);
 * each cue group is one 0/1 feature next to the embedding, and the trained heads decide how much
 * it counts.
 */
export const CUES: Record<string, RegExp> = {
  pricing:
    /\b(price[sd]?|pricing|cost(s|ly)?|expensive|cheap(er)?|afford|overpriced|discount|coupon|per seat|per user|\$\d+|€\d+|£\d+|value for (the )?money|worth (it|the)|plans?|tier|free (plan|tier|version)|paywall|premium|prix|preis\w*|precio\w*|prezzo|preço|teuer|cher|caro|descuento|rabatt)\b/i,
  billing:
    /\b(invoices?|billed|billing|charged?|charges|charging|payments?|paid|pay|credit card|card (was )?declined|receipts?|vat|tax(es)?|refund(ed|s)?|chargeback|renewal|auto-?renew|subscription fee|transaction|paypal|stripe|bank|factur\w*|rechnung\w*|cobr\w*|fattur\w*|abbuch\w*|pago|pagamento|paiement)\b/i,
  support:
    /\b(support|help ?desk|tickets?|agents?|customer (service|care|success)|live chat|(your|the) (team|rep|staff)|repl(y|ied|ies)|respon(se|d|ded|ds)|answered|get back to|escalat\w*|account manager|csm|soporte|assistance|kundendienst|suporte|assistenza)\b/i,
  performance:
    /\b(slow(er|ly|ness)?|fast(er)?|speed|lag(s|gy|ging)?|latency|load(ing)? (time|forever|slowly)|takes? (forever|ages|minutes|seconds)|time[sd]? ?out|timeouts?|sluggish|snappy|quick(er)?|performance|spinner|spinning|freez(e|es|ing)|lent[eao]?s?|langsam\w*|lenta|lentissim\w*|traag)\b/i,
  reliability:
    /\b(crash(es|ed|ing)?|down(time)?|outages?|bugs?|buggy|errors?|broken|breaks?|broke|glitch(es|y)?|fail(s|ed|ing|ure)?|not working|doesn'?t work|stopped working|data loss|lost (my|our|all)|disappeared|corrupt\w*|500|stable|unstable|reliab\w*|incident|status page|went down|is down|sync(ing)? (issue|problem|fail)|plante|plantage|stürzt|abst(ü|u)rz\w*|trava\w*|crasht|bloqu\w*|panne)\b/i,
  usability:
    /\b(ui|ux|interface|navigat\w*|intuitive|confusing|cluttered|clunky|design|layout|menus?|buttons?|clicks?|easy to (use|find|navigate)|hard to (use|find|navigate)|user[- ]friendly|find (the|where|anything)|dark mode|font|screen|redesign|dashboard|accessib\w*|workflow)\b/i,
  onboarding:
    /\b(onboard\w*|get(ting)? started|set ?up|setup|sign(ed|ing)? ?up|signup|account creation|creat(e|ing) (an |my |our )?account|first (day|week|time|login)|tutorials?|walkthrough|guides?|docs|documentation|migrat\w*|import(ed|ing)?|trial|demo|training|learning curve|new user)\b/i,
  integrations:
    /\b(integrat\w*|api|apis|webhooks?|zapier|slack|salesforce|hubspot|jira|teams|google (sheets|drive|calendar)|gmail|outlook|shopify|quickbooks|xero|notion|github|gitlab|sync(s|ed|ing)?|connect(or|ors|ion|ed)?|export(s|ed|ing)?|csv|import|plugin|add-?on|sdk|endpoint|rate limit|oauth|token)\b/i,
  security:
    /\b(secur\w*|privacy|private|passwords?|2fa|two[- ]factor|mfa|sso|saml|okta|permissions?|roles?|access control|audit( log)?|gdpr|soc ?2|hipaa|iso ?27001|compliance|complian\w*|encrypt\w*|breach|hack(ed)?|phishing|suspicious|login attempts?|data protection|dpa|retention)\b/i,
  mobile:
    /\b(mobile|iphone|ipad|ios|android|phone|tablet|app store|play store|the app\b|push notifications?|apk|samsung|pixel)\b/i,
  features:
    /\b(features?|functionality|roadmap|capabilit\w*|missing|lacks?|add(ed)? (a |an )?\w+|support for|ability to|option to|would (love|like) (to|a|an)|wish|please add|new (feature|release|version|update)|beta|release)\b/i,
  churn:
    /\b(cancel(l?ing|l?ed)? (my|our|the) (subscription|account|plan|contract)|cancel(l?ing)?\b(?! the add)|leaving|switch(ing)? (to|over to) (another|a different|a competitor|a cheaper)|mov(e|ing) (to|over to) (another|a different|a competitor)|competitors?|alternatives?|(not|won'?t|will not) (be )?renew\w*|terminat\w*|(close|delete) (my|our) account|done with|churn\w*|quit(ting)?|stop using|replac(e|ing) you|goodbye|elsewhere|look(ing)? for another|find another|last (month|year) (with|on) (you|this)|résili\w*|k(ü|u)ndig\w*|cancelar|cancelamos|annul\w*|disdett\w*|opzeggen)\b/i,
  upgrade:
    /\b(upgrad\w*|add(ing)? (\d+ |more |a few |some )?(seats|users|licenses)|more seats|higher (plan|tier)|enterprise (plan|tier)|business plan|expand\w*|buy more|more (storage|credits|capacity)|quote|scale up)\b/i,
  downgrade:
    /\b(downgrad\w*|cheaper plan|lower (plan|tier)|reduce (our |the )?(seats|users|licenses|plan)|fewer (seats|users)|remove (\d+ )?(seats|users)|basic plan|free plan|scale (back|down)|cut (back|down))\b/i,
  refund:
    /\b(refund\w*|money back|chargeback|reimburs\w*|credit (back|note)|charge ?back|return (the|my) (money|payment)|rembours\w*|reembols\w*|rückerstatt\w*|erstatt\w*|rimbors\w*|geld zurück)\b/i,
  price_sensitive:
    /\b(too (expensive|pricey|costly|much)|overpriced|discount|cheaper|afford\w*|budget|worth (it|the (money|price|cost))|not worth|justify|price (increase|hike)|costs? (too|a lot|more)|nonprofit|student|coupon|deal)\b/i,
  feature_request:
    /\b(please (add|make|let|allow|support|bring|consider)|would (be|love|like)|wish|could you (add|make)|any plans?|on the roadmap|feature request|need (a|an|the ability|to be able)|missing|it'd be|would it be possible|request|suggest\w*|\+1|allow (us|me) to|let (us|me))\b/i,
  recommend:
    /\b(recommend\w*|love (it|this|the)|amazing|awesome|fantastic|excellent|great (tool|product|app|job|work|support)|best (tool|app|product)|game ?changer|lifesaver|told (my|our)|5 stars?|five stars|highly|keep it up|thank you|thanks|recommand\w*|recomiend\w*|recomend\w*|empfehl\w*|raccomand\w*|super outil|excelente|toll(es)?)\b/i,
  support_request:
    /(\?|\b(how (do|can|to|should)|can (you|someone|i)|could (you|someone)|please help|help (me|us)|need help|is there a way|where (do|can|is)|what('s| is) the|stuck|not sure how|any idea)\b)/i,
};

const NEGATION = /\b(not|no|never|n't|without|nothing)\b/i;

export const CUE_NAMES = [...Object.keys(CUES), 'lexicon', 'lexicon_hits', 'question', 'negation', 'exclaim', 'short'];

/** Cue features of one text: one per cue group, then a few general signals. */
export function cueFeatures(text: string): number[] {
  const out: number[] = Object.values(CUES).map((re) => (re.test(text) ? 1 : 0));
  const lex = lexiconScore(text);
  const words = text.split(/\s+/).filter(Boolean).length;
  out.push(
    lex.score,
    Math.min(lex.hits, 4) / 4,
    /\?/.test(text) ? 1 : 0,
    NEGATION.test(text) ? 1 : 0,
    /!/.test(text) ? 1 : 0,
    words <= 4 ? 1 : 0,
  );
  return out;
}
