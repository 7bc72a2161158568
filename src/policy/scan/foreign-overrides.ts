import { clip, type Finding } from './finding.js';
import { WordGate } from './word-gate.js';

/**
 * "Ignore all previous instructions" in the languages a model reads as well as English. Each
 * is a dismissal verb and an instruction noun marked as earlier (or as the model's), in the
 * language's own order; an honest description in that language ("ignoriert Groß- und
 * Kleinschreibung", "ignora mayúsculas") has the verb without the marked noun. These read the
 * text as written (accents and Cyrillic kept), not the Latin-folded form.
 */
interface Language {
  readonly name: string;
  /** Cheap gate: a letter of the script, or one of the nouns (lower-case) the phrase needs. */
  readonly needs: RegExp | readonly string[];
  readonly re: RegExp;
}

/** Word boundaries and word characters for every script (`\b` and `\w` are ASCII-only in JavaScript regular expressions). */
const BOUNDARY = String.raw`(?:(?<![\p{L}\p{N}_])(?=[\p{L}\p{N}_])|(?<=[\p{L}\p{N}_])(?![\p{L}\p{N}_]))`;
function re(source: string): RegExp {
  return new RegExp(
    source.replaceAll(String.raw`\b`, BOUNDARY).replaceAll(String.raw`\w`, String.raw`[\p{L}\p{N}_]`),
    'iu',
  );
}

/** Up to a few words between the verb and its object, within a sentence. */
const GAP = String.raw`[^.!?\n。！？]{0,40}?`;

const LANGUAGES: readonly Language[] = [
  {
    name: 'German',
    needs: [
      'anweisung',
      'instruktion',
      'befehle',
      'regeln',
      'vorgaben',
      'richtlinien',
      'anordnung',
      'systemprompt',
      'anleitung',
    ],
    re: re(
      String.raw`\b(?:ignorier(?:e|en|t)?|vergiss|vergessen\s+sie|vergesst|missacht(?:e|en|et)|übergeh(?:e|en)|verwirf|verwerfen\s+sie|beachte(?:n\s+sie|t)?\s+(?:\w+\s+){0,3}?nicht)\b${GAP}\b(?:vorherigen?|bisherigen?|vorigen?|obigen?|früheren?|vorangegangenen?|vorhergehenden?|ursprünglichen?|alten|deine[nr]?|ihre[nr]?|eure[nr]?|alle)\s+(?:\w+\s+)?(?:anweisungen|instruktionen|befehle|regeln|vorgaben|richtlinien|anordnungen|systemprompts?|systemanweisungen|anleitungen)\b`,
    ),
  },
  {
    name: 'French',
    needs: ['instructions', 'consignes', 'directives', 'règles', 'indications', 'ordres', 'invite'],
    re: re(
      String.raw`\b(?:ignore[sz]?|ignorer|oublie[sz]?|oublier|néglige[sz]?|ne\s+(?:tiens|tenez|tenir)\s+(?:pas\s+|plus\s+)?compte|fai(?:s|tes)\s+abstraction|écarte[sz]?|ne\s+(?:suis|suivez)\s+(?:pas|plus))\b${GAP}(?:(?:tes|vos|les|toutes\s+les|tous\s+les)\s+)(?:\w+\s+)?(?:instructions|consignes|directives|règles|indications|ordres|invites?)\b(?:\s+(?:précédentes|précédents|antérieures|antérieurs|ci-dessus|initiales|d['’]origine|reçues|données|du\s+système))?`,
    ),
  },
  {
    name: 'Spanish',
    needs: ['instrucci', 'indicaciones', 'directrices', 'reglas', 'órdenes', 'ordenes', 'normas', 'pautas'],
    re: re(
      String.raw`\b(?:ignora|ignore|ignorad|ignoren|olvida|olvide|olviden|olvidad|descarta|descarte|omite|omita|no\s+(?:hagas|haga|hagan)\s+caso\s+(?:a|de)|haz\s+caso\s+omiso\s+(?:a|de)|no\s+(?:sigas|siga|sigan)|desobedece)\b${GAP}(?:(?:todas\s+las|las|tus|sus|todos\s+los|los)\s+)(?:\w+\s+)?(?:instrucciones|indicaciones|directrices|reglas|órdenes|ordenes|normas|pautas)\s+(?:anteriores|previas|de\s+arriba|iniciales|originales|recibidas|dadas|del\s+sistema)\b|\b(?:ignora|ignore|olvida|olvide|descarta)\b${GAP}\b(?:tus|sus)\s+(?:instrucciones|reglas|directrices|órdenes)\b`,
    ),
  },
  {
    name: 'Italian',
    needs: ['istruzioni', 'indicazioni', 'direttive', 'regole', 'ordini'],
    re: re(
      String.raw`\b(?:ignora|ignori|ignorate|dimentica|dimentichi|dimenticate|trascura|tralascia|non\s+(?:seguire|considerare))\b${GAP}(?:(?:tutte\s+le|le|tue|sue|tutti\s+i|i)\s+)(?:\w+\s+)?(?:istruzioni|indicazioni|direttive|regole|ordini)\s+(?:precedenti|di\s+sopra|sopra|iniziali|originali|ricevute|del\s+sistema)\b`,
    ),
  },
  {
    name: 'Portuguese',
    needs: ['instruç', 'instruc', 'orientaç', 'orientac', 'diretrizes', 'regras', 'ordens', 'indicaç'],
    re: re(
      String.raw`\b(?:ignore|ignora|ignorem|esqueça|esqueca|esquece|esqueçam|desconsidere|desconsidera|descarte|descarta|não\s+(?:siga|sigas))\b${GAP}(?:(?:todas\s+as|as|suas|tuas|todos\s+os|os)\s+)(?:\w+\s+)?(?:instruções|instrucoes|orientações|orientacoes|diretrizes|regras|ordens|indicações)\s+(?:anteriores|prévias|previas|acima|iniciais|originais|recebidas|do\s+sistema)\b`,
    ),
  },
  {
    name: 'Dutch',
    needs: ['instructies', 'aanwijzingen', 'regels', 'opdrachten', 'richtlijnen'],
    re: re(
      String.raw`\b(?:negeer|vergeet|negeren|volg\s+(?:\w+\s+){0,3}?niet)\b${GAP}\b(?:vorige|eerdere|voorgaande|bovenstaande|oorspronkelijke|je|jouw|uw|alle)\s+(?:\w+\s+)?(?:instructies|aanwijzingen|regels|opdrachten|richtlijnen)\b`,
    ),
  },
  {
    name: 'Polish',
    needs: ['instrukcje', 'polecenia', 'zasady', 'wytyczne', 'reguły'],
    re: re(
      String.raw`(?:zignoruj|ignoruj|zapomnij|pomiń)${GAP}(?:poprzednie|wcześniejsze|powyższe|swoje|twoje|wszystkie)\s+(?:\S+\s+)?(?:instrukcje|polecenia|zasady|wytyczne|reguły)`,
    ),
  },
  {
    name: 'Russian',
    needs: /[\u0400-\u04FF]/,
    re: re(
      String.raw`(?:игнорируй|игнорируйте|проигнорируй|проигнорируйте|забудь|забудьте|не\s+обращай(?:те)?\s+внимания\s+на|отбрось|отбросьте|не\s+следуй(?:те)?|пренебреги|пренебрегите)${GAP}(?:предыдущие|прежние|предшествующие|вышеуказанные|вышеизложенные|изначальные|исходные|свои|твои|ваши|все)\s+(?:\S+\s+)?(?:инструкции|указания|правила|команды|директивы|установки|ограничения)`,
    ),
  },
  {
    name: 'Ukrainian',
    needs: /[\u0400-\u04FF]/,
    re: re(
      String.raw`(?:ігноруй|ігноруйте|проігноруй|забудь|забудьте|не\s+зважай(?:те)?\s+на)${GAP}(?:попередні|усі|всі|свої|твої|ваші)\s+(?:\S+\s+)?(?:інструкції|вказівки|правила|команди)`,
    ),
  },
  {
    name: 'Turkish',
    needs: ['talimat', 'kural', 'yönerge', 'komut'],
    re: re(
      String.raw`(?:önceki|yukarıdaki|daha\s+önceki|eski|tüm|bütün)\s+(?:\S+\s+)?(?:talimatlar[ıi]?|kurallar[ıi]?|yönergeler[ıi]?|komutlar[ıi]?)\s+(?:yok\s+say|görmezden\s+gel|unut|boş\s?ver)`,
    ),
  },
  {
    name: 'Chinese',
    needs: /[\u4E00-\u9FFF]/,
    re: re(
      String.raw`(?:忽略|无视|無視|忽视|忽視|忘记|忘記|忘掉|不要理会|不要理會|不要遵守|不要遵循|别管|別管|放弃|放棄|抛开|拋開)[^。！？\n]{0,10}?(?:之前|以前|先前|上面|上述|前面|此前|原来|原來|原先|所有|全部|你的|系统|系統)[^。！？\n]{0,8}?(?:指令|指示|说明|說明|规则|規則|提示|命令|要求|设定|設定|约束|約束)`,
    ),
  },
  {
    name: 'Japanese',
    needs: /[\u3040-\u30FF]/,
    re: re(
      String.raw`(?:以前|前|上記|これまで|先ほど|最初|元|今まで|すべて|全て)の[^。！？\n]{0,8}?(?:指示|命令|ルール|指令|プロンプト|設定|制約)[^。！？\n]{0,6}?(?:無視|忘れ|破棄|従わない)`,
    ),
  },
  {
    name: 'Korean',
    needs: /[\uAC00-\uD7AF]/,
    re: re(
      String.raw`(?:이전|위의|앞의|기존|모든|지금까지의)\s*(?:\S+\s+)?(?:지시|명령|지침|규칙|지시사항|프롬프트|설정)(?:을|를|은|는|들을|들은)?\s*(?:모두\s*)?(?:무시|잊어|잊)`,
    ),
  },
  {
    name: 'Arabic',
    needs: /[\u0600-\u06FF]/,
    re: re(
      String.raw`(?:تجاهل|تجاهلي|تجاهلوا|انس|انسى|انسي|لا\s+تتبع)\s+(?:\S+\s+){0,2}?(?:التعليمات|الأوامر|القواعد|الإرشادات)\s+(?:السابقة|الأصلية|المذكورة)`,
    ),
  },
  {
    name: 'Hindi',
    needs: /[\u0900-\u097F]/,
    re: re(
      String.raw`(?:पिछले|पिछली|पहले\s+के|ऊपर\s+के|पूर्व|सभी)\s+(?:\S+\s+)?(?:निर्देशों|निर्देश|नियमों|आदेशों)\s+(?:को\s+)?(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)`,
    ),
  },
];

/** Whether `text` might hold a non-English override (a cheap pre-check). */
export function mightOverrideInOtherLanguage(text: string): boolean {
  const present = GATE.present(text.toLowerCase());
  const nonAscii = NON_ASCII.test(text);
  return LANGUAGES.some((language) => mayHold(language, text, present, nonAscii));
}

/** Anything outside printable ASCII and whitespace. */
const NON_ASCII = /[^\t\n\r\x20-\x7E]/;
const GATE = new WordGate(LANGUAGES.flatMap((l) => (l.needs instanceof RegExp ? [] : l.needs)));

function mayHold(language: Language, text: string, present: ReadonlySet<string>, nonAscii: boolean): boolean {
  const { needs } = language;
  return needs instanceof RegExp ? nonAscii && needs.test(text) : needs.some((word) => present.has(word));
}

/** Every non-English override in `text` (`lower` is its lower-cased form). */
export function findForeignOverrides(text: string, lower: string, where: string): Finding[] {
  if (text.length < 6) return [];
  const nonAscii = NON_ASCII.test(text);
  const present = GATE.present(lower);
  if (!nonAscii && present.size === 0) return [];
  const findings: Finding[] = [];
  for (const language of LANGUAGES) {
    if (!mayHold(language, text, present, nonAscii)) continue;
    const m = language.re.exec(text);
    if (m) {
      findings.push({
        kind: 'instruction_override',
        where,
        excerpt: clip(m[0], 80),
        detail: `tells the model to ignore its previous instructions (in ${language.name})`,
      });
    }
  }
  return findings;
}
