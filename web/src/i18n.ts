// English and Arabic texts; the language is kept in localStorage and sent as accept-language.
export type Lang = "en" | "ar";
const en = {
  title: "Hand", lobby: "Lobby", leaderboard: "Leaderboard", language: "العربية",
  publicTables: "Public tables", noTables: "No public table has a free seat.", join: "Join",
  createRoom: "Create a room", mode: "Mode", rounds: "Rounds", turnTime: "Turn time (s)", seats: "Seats",
  visibility: "Visibility", public: "Public", private: "Private", yourName: "Your name", create: "Create",
  joinByCode: "Join by code", code: "Code", fillBots: "Fill with bots", level: "Bot level",
  beginner: "Beginner", middle: "Middle", strong: "Strong", expert: "Expert", random: "Random", start: "Start the match",
  waiting: "Waiting for players", joinCode: "Join code", host: "host", empty: "empty",
  playing: "playing", away: "away", bot: "bot", back: "back", you: "you",
  draw: "Draw", take: "Take", returnTake: "Return", discard: "Discard", layMelds: "Lay melds",
  stage: "Stage selected", suggest: "Suggest", clearStaging: "Clear", layOff: "Lay off",
  retrieve: "Retrieve joker", sortSuit: "Sort by suit", sortRank: "Sort by rank",
  stock: "Stock", pile: "Discard pile", table: "Table", staging: "Staging", yourHand: "Your hand",
  yourTurn: "Your turn", turnOf: (n: string) => `${n}'s turn`, cards: (n: number) => (n === 1 ? `${num(n)} card` : `${num(n)} cards`),
  more: (n: number) => `${num(n)} more needed`, scoreSheet: "Score sheet", round: "Round", total: "Total",
  cardsLeft: "Cards left", score: "Score", matchOver: "Match over", winner: "Winner", winners: "Winners",
  close: "Close", replay: "Replay", stepBack: "Step back", stepForward: "Step forward",
  toStart: "To the start", toEnd: "To the end", prevRound: "Previous round", nextRound: "Next round",
  play: "Play", pause: "Pause", replaySteps: "Replay controls", scoreSoFar: "Score so far", hands: "Hands",
  handsAfterMatch: "Every hand is shown once the match is over.", turnNow: "to play", notDealt: "Not dealt yet",
  spectating: "Spectating", reconnecting: "Reconnecting…", rating: "Rating", matches: "Matches",
  wins: "Wins", player: "Player", meldBy: (n: string) => `by ${n}`, opened: "open", step: "Step",
  hint: "Select cards, then stage, lay off (click a meld) or discard. Drag works too.",
  watch: "Watch", roomLabel: "Room", seat: "Seat",
  yourStats: "Your statistics", noStatsYet: "No finished match yet: your rating appears after your first.",
  verifyDeal: "Verify this deal", verified: "verified", failed: "FAILED", pending: "pending (round or match not over)",
  unverifiable: "not provable (fixed seed)", commitment: "Commitment", serverSeed: "Revealed seed",
  matchCommitment: "Match commitment (before any seat seed)", matchSecret: "Revealed match secret",
  allVerified: "Every deal verified", notAllVerified: "Not every deal is verified",
  chat: "Quick chat", chatPhrases: "Phrases", mute: (n: string) => `Mute ${n}`, unmute: (n: string) => `Unmute ${n}`,
  spectator: "Spectator", chatSays: (n: string) => `${n} says`,
  phrases: ["Hello!", "Hello to you too!", "Good luck!", "Well played!", "Hurry up, please", "Sorry!", "Thanks!",
    "Congratulations!", "Good game!", "One more game?", "Be right back", "Bye!"],
  roundsPlayed: (n: number) => (n === 1 ? "1 round played" : `${n} rounds played`),
  secondsShort: "s", hurry: (n: number) => `${n} s left: the timer plays your turn after that`,
  seating: "Seating", dealer: "Dealer", dealerShort: "D", firstPlayer: "First to play", firstShort: "1st",
  partner: "partner", yourPartner: (n: string) => `Your partner: ${n}`, team: (k: number) => `Team ${k}`,
  yourTeam: (names: string) => `Your team: ${names}`, otherTeam: (names: string) => `Opponents: ${names}`,
  teamTotal: "Team total", playsNext: "plays after", counterClockwise: "Play goes counter-clockwise",
  awayTitle: "You are away", awayText: "A bot is playing your seat until you come back.", imBack: "I'm back",
  timerPlayed: (what: string) => `The timer played your turn: ${what}`,
  botPlayed: (what: string) => `A bot played your turn: ${what}`,
  playNow: "Play now", playNowHint: "A table of players of your level, with the mode and seats chosen above.",
  lookingForTable: "Looking for a table…", cancel: "Cancel",
  waitedFor: (n: number) => `Waiting for ${num(n)} s`, botsIn: (n: number) => `Bots complete the table in ${num(n)} s`,
  botName: (n: number) => `Bot ${num(n)}`, offline: "No connection: your move is sent again as soon as it is back.",
  roomOpened: (mode: string) => `The room is open (${mode})`, connected: (w: string) => `${w} is connected`,
  sat: (w: string) => `${w} sat down`, left: (w: string) => `${w} left`, awayLine: (w: string) => `${w} is away (a bot plays)`,
  backLine: (w: string) => `${w} is back`, timedOut: (w: string) => `${w} ran out of time`,
  dealt: (r: number) => `Round ${num(r)} is dealt`, roundOver: (r: number) => `Round ${num(r)} is over`,
  started: "The match starts", ended: "The match is over", byTimer: " (timer)",
  moved: (w: string, verb: string) => `${w} ${verb}`,
  moves: { drawStock: "drew from the stock", takeDiscard: "took from the pile", returnTake: "returned the take",
    layMelds: "laid melds", layOff: "laid off", retrieveJoker: "retrieved a joker", discard: "discarded" } as Record<string, string>,
  tournaments: "Tournaments", createTournament: "Create a tournament", tournamentName: "Tournament name",
  deals: "Deals", tablesCount: "Tables", openEntry: "Open entry", startTime: "Start time (optional)",
  noTournaments: "No tournament yet.", openIt: "Open", organiser: "Organiser", entrants: "Entrants",
  statusOf: ["", "Taking entries", "Playing", "Closed"] as string[], enter: "Enter", entered: "You are entered.",
  startTournament: "Start the tournament", startsAt: (when: string) => `Starts by itself at ${when}`,
  dealsPlayed: (a: number, b: number) => `Deals played: ${num(a)} / ${num(b)}`,
  closeTournament: "Close the tournament", myTable: "My table", tableNo: (n: number) => `Table ${num(n)}`,
  dealNo: (n: number) => `Deal ${num(n)}`, playDeal: (n: number) => `Play deal ${num(n)}`, dealOver: "over",
  nextDealSoon: "Your next deal starts once every seat of the previous one is done.",
  standings: "Standings", place: "Place", matchpoints: "Matchpoints", rawTotal: "Raw total",
  byDeal: "Deal by deal", dealSeat: (d: number, s: number) => `Deal ${num(d)}, seat ${num(s)}`,
  replays: "Replays", resultsHidden: "Results are shown once the organiser closes the tournament.",
  backToTournament: "Back to the tournament", scoring: "Matchpoints: 1 for each table beaten at the same seat of the same deal, ½ for each tie; the raw total (lower is better) breaks ties.",
  leftMidMatch: "left mid-match", quitNote: (names: string) => `${names} left mid-match: a bot played the seat, and the result counts for them without a gain.`,
  modes: {
    hand: ["Hand", "The classic game: open with 51 points, 2 to 4 players."],
    saudi: ["Saudi Hand", "Each opening must beat the last one; an ace is 1 in a low run."],
    partnership: ["Partnership Hand", "Two teams of two, partners sit opposite; each opens with 51."],
    "saudi-partnership": ["Saudi Partnership", "Saudi Hand played by two teams of two."],
    "eram-hand": ["Hand (ERAM)", "ERAM's rules: a take opens you, takes are final, you may go out without a discard."],
    "eram-saudi": ["Saudi Hand (ERAM)", "ERAM's rules with a rising opening threshold."],
    "eram-partnership": ["Partnership (ERAM)", "ERAM's rules for two teams; the team opens together."],
    "eram-saudi-partnership": ["Saudi Partnership (ERAM)", "ERAM's rules, two teams, a rising opening threshold."],
    dananeer: ["Dananeer", "Dananeer's rules: free takes, a second joker by laying off, ties shared."],
    r2019: ["Classic 2019", "Up to 5 players; a take needs a new meld that turn, takes are final."],
    "kout-hand": ["Hand (Kout)", "Kout's rules: the classic game, open with 51 points."],
    "kout-saudi": ["Saudi Hand (Kout)", "Kout's Saudi game: each opening must beat the last one."],
    "kout-partnership": ["Partnership (Kout)", "Kout's rules for two teams of two."],
    "kout-saudi-partnership": ["Saudi Partnership (Kout)", "Kout's Saudi game for two teams of two."],
  } as Record<string, [string, string]>,
};
type Texts = typeof en;
const ar: Texts = {
  title: "هاند", lobby: "الردهة", leaderboard: "لوحة المتصدرين", language: "English",
  publicTables: "طاولات عامة", noTables: "لا توجد طاولة عامة فيها مقعد شاغر.", join: "انضمام",
  createRoom: "إنشاء غرفة", mode: "النمط", rounds: "الجولات", turnTime: "وقت الدور (ثانية)", seats: "المقاعد",
  visibility: "الظهور", public: "عامة", private: "خاصة", yourName: "اسمك", create: "إنشاء",
  joinByCode: "انضمام بالرمز", code: "الرمز", fillBots: "املأ بلاعبين آليين", level: "مستوى اللاعب الآلي",
  beginner: "مبتدئ", middle: "متوسط", strong: "قوي", expert: "خبير", random: "عشوائي", start: "ابدأ المباراة",
  waiting: "بانتظار اللاعبين", joinCode: "رمز الانضمام", host: "المضيف", empty: "شاغر",
  playing: "يلعب", away: "غائب", bot: "آلي", back: "عاد", you: "أنت",
  draw: "اسحب", take: "خذ", returnTake: "أرجع", discard: "ارمِ", layMelds: "انزل المجموعات",
  stage: "جهّز المحدد", suggest: "اقترح", clearStaging: "امسح", layOff: "ألصق",
  retrieve: "استرجع الجوكر", sortSuit: "رتّب حسب النوع", sortRank: "رتّب حسب الرقم",
  stock: "الكومة", pile: "المرمى", table: "الطاولة", staging: "التجهيز", yourHand: "ورقك",
  yourTurn: "دورك", turnOf: (n: string) => `دور ${n}`, cards: (n: number) => `${num(n)} ورقة`,
  more: (n: number) => `ينقصك ${num(n)}`, scoreSheet: "ورقة النقاط", round: "الجولة", total: "المجموع",
  cardsLeft: "الورق المتبقي", score: "النقاط", matchOver: "انتهت المباراة", winner: "الفائز", winners: "الفائزون",
  close: "إغلاق", replay: "إعادة العرض", stepBack: "خطوة للخلف", stepForward: "خطوة للأمام",
  toStart: "إلى البداية", toEnd: "إلى النهاية", prevRound: "الجولة السابقة", nextRound: "الجولة التالية",
  play: "تشغيل", pause: "إيقاف مؤقت", replaySteps: "أزرار إعادة العرض", scoreSoFar: "النقاط حتى الآن", hands: "الأوراق",
  handsAfterMatch: "تظهر أوراق الجميع بعد انتهاء المباراة.", turnNow: "يلعب الآن", notDealt: "لم يُوزَّع الورق بعد",
  spectating: "مشاهدة", reconnecting: "إعادة الاتصال…", rating: "التقييم", matches: "المباريات",
  wins: "الانتصارات", player: "اللاعب", meldBy: (n: string) => `لـ ${n}`, opened: "نازل", step: "الخطوة",
  hint: "حدّد أوراقاً ثم جهّزها أو ألصقها (انقر مجموعة) أو ارمِ. السحب والإفلات يعمل أيضاً.",
  watch: "شاهد", roomLabel: "الغرفة", seat: "المقعد",
  yourStats: "إحصاءاتك", noStatsYet: "لا مباراة منتهية بعد: يظهر تقييمك بعد أول مباراة.",
  verifyDeal: "تحقّق من التوزيع", verified: "مُتحقَّق منه", failed: "فشل التحقق", pending: "بانتظار نهاية الجولة أو المباراة",
  unverifiable: "غير قابل للإثبات (بذرة ثابتة)", commitment: "الالتزام", serverSeed: "البذرة المكشوفة",
  matchCommitment: "التزام المباراة (قبل أي بذرة مقعد)", matchSecret: "سرّ المباراة المكشوف",
  allVerified: "كل التوزيعات مُتحقَّق منها", notAllVerified: "ليست كل التوزيعات مُتحقَّقاً منها",
  chat: "دردشة سريعة", chatPhrases: "العبارات", mute: (n: string) => `كتم ${n}`, unmute: (n: string) => `إلغاء كتم ${n}`,
  spectator: "مشاهد", chatSays: (n: string) => `${n} يقول`,
  phrases: ["السلام عليكم", "وعليكم السلام", "بالتوفيق", "أحسنت!", "يلا بسرعة", "آسف!", "شكراً، يعطيك العافية",
    "مبروك!", "لعبة حلوة!", "نلعب كمان وحدة؟", "دقيقة وراجع", "مع السلامة"],
  roundsPlayed: (n: number) => `الجولات الملعوبة: ${num(n)}`,
  secondsShort: "ث", hurry: (n: number) => `بقي ${num(n)} ث: بعدها يلعب المؤقت دورك`,
  seating: "الجلسة", dealer: "الموزّع", dealerShort: "م", firstPlayer: "يبدأ اللعب", firstShort: "١",
  partner: "شريك", yourPartner: (n: string) => `شريكك: ${n}`, team: (k: number) => `الفريق ${num(k)}`,
  yourTeam: (names: string) => `فريقك: ${names}`, otherTeam: (names: string) => `الخصوم: ${names}`,
  teamTotal: "مجموع الفريق", playsNext: "يلعب بعد", counterClockwise: "اللعب عكس عقارب الساعة",
  awayTitle: "أنت غائب", awayText: "يلعب آلي مكانك حتى تعود.", imBack: "رجعت",
  timerPlayed: (what: string) => `لعب المؤقت دورك: ${what}`,
  botPlayed: (what: string) => `لعب آلي دورك: ${what}`,
  playNow: "العب الآن", playNowHint: "طاولة مع لاعبين بمستواك، بالنمط وعدد المقاعد المختارَين أعلاه.",
  lookingForTable: "جارٍ البحث عن طاولة…", cancel: "إلغاء",
  waitedFor: (n: number) => `الانتظار منذ ${num(n)} ث`, botsIn: (n: number) => `يكمل اللاعبون الآليون الطاولة بعد ${num(n)} ث`,
  botName: (n: number) => `روبوت ${num(n)}`, offline: "لا يوجد اتصال: تُرسل حركتك من جديد فور عودته.",
  roomOpened: (mode: string) => `فُتحت الغرفة (${mode})`, connected: (w: string) => `${w} متصل`,
  sat: (w: string) => `جلس ${w}`, left: (w: string) => `غادر ${w}`, awayLine: (w: string) => `${w} غائب (يلعب آلي مكانه)`,
  backLine: (w: string) => `عاد ${w}`, timedOut: (w: string) => `انتهى وقت ${w}`,
  dealt: (r: number) => `وُزّعت الجولة ${num(r)}`, roundOver: (r: number) => `انتهت الجولة ${num(r)}`,
  started: "بدأت المباراة", ended: "انتهت المباراة", byTimer: " (المؤقت)",
  moved: (w: string, verb: string) => `${w} ${verb}`,
  moves: { drawStock: "سحب من الكومة", takeDiscard: "أخذ من المرمى", returnTake: "أرجع الورقة المأخوذة",
    layMelds: "نزّل مجموعات", layOff: "ألصق ورقاً", retrieveJoker: "استرجع جوكر", discard: "رمى" },
  tournaments: "البطولات", createTournament: "إنشاء بطولة", tournamentName: "اسم البطولة",
  deals: "التوزيعات", tablesCount: "الطاولات", openEntry: "دخول مفتوح", startTime: "وقت البدء (اختياري)",
  noTournaments: "لا توجد بطولة بعد.", openIt: "افتح", organiser: "المنظّم", entrants: "المشاركون",
  statusOf: ["", "التسجيل مفتوح", "جارية", "مغلقة"], enter: "شارك", entered: "أنت مشارك.",
  startTournament: "ابدأ البطولة", startsAt: (when: string) => `تبدأ تلقائياً في ${when}`,
  dealsPlayed: (a: number, b: number) => `التوزيعات الملعوبة: ${num(a)} / ${num(b)}`,
  closeTournament: "أغلق البطولة", myTable: "طاولتي", tableNo: (n: number) => `الطاولة ${num(n)}`,
  dealNo: (n: number) => `التوزيع ${num(n)}`, playDeal: (n: number) => `العب التوزيع ${num(n)}`, dealOver: "انتهى",
  nextDealSoon: "يبدأ توزيعك التالي بعد انتهاء التوزيع السابق على طاولتك.",
  standings: "الترتيب", place: "المركز", matchpoints: "نقاط المقارنة", rawTotal: "مجموع النقاط",
  byDeal: "توزيعاً توزيعاً", dealSeat: (d: number, s: number) => `التوزيع ${num(d)}، المقعد ${num(s)}`,
  replays: "إعادات العرض", resultsHidden: "تظهر النتائج بعد أن يغلق المنظّم البطولة.",
  backToTournament: "العودة إلى البطولة", scoring: "نقاط المقارنة: نقطة عن كل طاولة تتفوق عليها في المقعد نفسه من التوزيع نفسه، ونصف نقطة عن التعادل؛ ومجموع النقاط (الأقل أفضل) يفصل التعادل.",
  leftMidMatch: "غادر أثناء المباراة", quitNote: (names: string) => `${names} غادر أثناء المباراة: لعب آلي مكانه، وتُحسب النتيجة عليه بلا مكسب.`,
  modes: {
    hand: ["هاند", "اللعبة الأصلية: تنزل بـ ٥١ نقطة، من ٢ إلى ٤ لاعبين."],
    saudi: ["هاند سعودي", "كل نزول يجب أن يتجاوز الذي قبله؛ الآس بواحد في السلسلة الصغيرة."],
    partnership: ["هاند شراكة", "فريقان من لاعبَين، الشريكان متقابلان؛ كل لاعب ينزل بـ ٥١."],
    "saudi-partnership": ["سعودي شراكة", "الهاند السعودي بين فريقين من لاعبَين."],
    "eram-hand": ["هاند (إرم)", "قواعد إرم: الأخذ يلزمك بالنزول، لا إرجاع للمأخوذ، ويجوز الخروج بلا رمي."],
    "eram-saudi": ["هاند سعودي (إرم)", "قواعد إرم مع حد نزول متصاعد."],
    "eram-partnership": ["شراكة (إرم)", "قواعد إرم لفريقين؛ الفريق ينزل معاً."],
    "eram-saudi-partnership": ["سعودي شراكة (إرم)", "قواعد إرم، فريقان، وحد نزول متصاعد."],
    dananeer: ["دنانير", "قواعد دنانير: أخذ بلا شرط، جوكر ثانٍ بالإلصاق، والتعادل مشترك."],
    r2019: ["كلاسيكي ٢٠١٩", "حتى ٥ لاعبين؛ الأخذ يلزمك بمجموعة جديدة في الدور نفسه، ولا إرجاع."],
    "kout-hand": ["هاند (كوت)", "قواعد كوت: اللعبة الأصلية، تنزل بـ ٥١ نقطة."],
    "kout-saudi": ["هاند سعودي (كوت)", "سعودي كوت: كل نزول يجب أن يتجاوز الذي قبله."],
    "kout-partnership": ["شراكة (كوت)", "قواعد كوت لفريقين من لاعبَين."],
    "kout-saudi-partnership": ["سعودي شراكة (كوت)", "سعودي كوت لفريقين من لاعبَين."],
  },
};
const TEXTS: Record<Lang, Texts> = { en, ar };

export function getLang(): Lang {
  const url = new URLSearchParams(location.search).get("lang");
  if (url === "ar" || url === "en") return url;
  const stored = localStorage.getItem("hand.lang");
  return stored === "ar" ? "ar" : "en";
}
export function setLang(lang: Lang): void {
  localStorage.setItem("hand.lang", lang);
  applyLang(lang);
}
export function applyLang(lang: Lang): void {
  document.documentElement.lang = lang;
  document.documentElement.dir = lang === "ar" ? "rtl" : "ltr";
}
export function t(): Texts { return TEXTS[getLang()]; }

// Numbers (docs/web-client.md, "Numbers"): Arabic-Indic digits on the Arabic page (٤٤), Western digits
// on the English one; shown in an LTR isolate (<Num>, ui/num.tsx) so that a minus sign stands left of
// its digits in both ("-44", "-٤٤") instead of drifting to the right in right-to-left text.
const arabic = new Intl.NumberFormat("ar-u-nu-arab", { useGrouping: false, maximumFractionDigits: 3 });
/** A number in the page's digits (no isolate: for counts inside sentences; signed values use <Num>). */
export function num(n: number | bigint, fraction?: number): string {
  if (getLang() !== "ar") return fraction === undefined ? String(n) : Number(n).toFixed(fraction);
  const f = fraction === undefined ? arabic
    : new Intl.NumberFormat("ar-u-nu-arab", { useGrouping: false, minimumFractionDigits: fraction, maximumFractionDigits: fraction });
  return f.format(n).replace(/\u061c/g, ""); // the Arabic letter mark ICU puts before a minus: the isolate orders it
}
/** A mode's (preset's) name and one-line description in the page's language; an unknown id as it is. */
export function mode(preset: string): [string, string] {
  return t().modes[preset || "hand"] ?? [preset, ""];
}
