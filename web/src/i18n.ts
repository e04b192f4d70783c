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
  yourTurn: "Your turn", turnOf: (n: string) => `${n}'s turn`, cards: (n: number) => `${n} cards`,
  more: (n: number) => `${n} more needed`, scoreSheet: "Score sheet", round: "Round", total: "Total",
  cardsLeft: "Cards left", score: "Score", matchOver: "Match over", winner: "Winner", winners: "Winners",
  close: "Close", replay: "Replay", stepBack: "Step back", stepForward: "Step forward",
  spectating: "Spectating", reconnecting: "Reconnecting…", rating: "Rating", matches: "Matches",
  wins: "Wins", player: "Player", meldBy: (n: string) => `by ${n}`, opened: "open", step: "Step",
  hint: "Select cards, then stage, lay off (click a meld) or discard. Drag works too.",
  watch: "Watch", roomLabel: "Room", seat: "Seat",
  yourStats: "Your statistics", noStatsYet: "No finished match yet: your rating appears after your first.",
  verifyDeal: "Verify this deal", verified: "verified", failed: "FAILED", pending: "pending (round not over)",
  unverifiable: "not provable (fixed seed)", commitment: "Commitment", serverSeed: "Revealed seed",
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
  waitedFor: (n: number) => `Waiting for ${n} s`, botsIn: (n: number) => `Bots complete the table in ${n} s`,
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
  yourTurn: "دورك", turnOf: (n: string) => `دور ${n}`, cards: (n: number) => `${n} ورقة`,
  more: (n: number) => `ينقصك ${n}`, scoreSheet: "ورقة النقاط", round: "الجولة", total: "المجموع",
  cardsLeft: "الورق المتبقي", score: "النقاط", matchOver: "انتهت المباراة", winner: "الفائز", winners: "الفائزون",
  close: "إغلاق", replay: "إعادة العرض", stepBack: "خطوة للخلف", stepForward: "خطوة للأمام",
  spectating: "مشاهدة", reconnecting: "إعادة الاتصال…", rating: "التقييم", matches: "المباريات",
  wins: "الانتصارات", player: "اللاعب", meldBy: (n: string) => `لـ ${n}`, opened: "نازل", step: "الخطوة",
  hint: "حدّد أوراقاً ثم جهّزها أو ألصقها (انقر مجموعة) أو ارمِ. السحب والإفلات يعمل أيضاً.",
  watch: "شاهد", roomLabel: "الغرفة", seat: "المقعد",
  yourStats: "إحصاءاتك", noStatsYet: "لا مباراة منتهية بعد: يظهر تقييمك بعد أول مباراة.",
  verifyDeal: "تحقّق من التوزيع", verified: "مُتحقَّق منه", failed: "فشل التحقق", pending: "بانتظار نهاية الجولة",
  unverifiable: "غير قابل للإثبات (بذرة ثابتة)", commitment: "الالتزام", serverSeed: "البذرة المكشوفة",
  allVerified: "كل التوزيعات مُتحقَّق منها", notAllVerified: "ليست كل التوزيعات مُتحقَّقاً منها",
  chat: "دردشة سريعة", chatPhrases: "العبارات", mute: (n: string) => `كتم ${n}`, unmute: (n: string) => `إلغاء كتم ${n}`,
  spectator: "مشاهد", chatSays: (n: string) => `${n} يقول`,
  phrases: ["السلام عليكم", "وعليكم السلام", "بالتوفيق", "أحسنت!", "يلا بسرعة", "آسف!", "شكراً، يعطيك العافية",
    "مبروك!", "لعبة حلوة!", "نلعب كمان وحدة؟", "دقيقة وراجع", "مع السلامة"],
  roundsPlayed: (n: number) => `الجولات الملعوبة: ${n}`,
  secondsShort: "ث", hurry: (n: number) => `بقي ${n} ث: بعدها يلعب المؤقت دورك`,
  seating: "الجلسة", dealer: "الموزّع", dealerShort: "م", firstPlayer: "يبدأ اللعب", firstShort: "١",
  partner: "شريك", yourPartner: (n: string) => `شريكك: ${n}`, team: (k: number) => `الفريق ${k}`,
  yourTeam: (names: string) => `فريقك: ${names}`, otherTeam: (names: string) => `الخصوم: ${names}`,
  teamTotal: "مجموع الفريق", playsNext: "يلعب بعد", counterClockwise: "اللعب عكس عقارب الساعة",
  awayTitle: "أنت غائب", awayText: "يلعب آلي مكانك حتى تعود.", imBack: "رجعت",
  timerPlayed: (what: string) => `لعب المؤقت دورك: ${what}`,
  botPlayed: (what: string) => `لعب آلي دورك: ${what}`,
  playNow: "العب الآن", playNowHint: "طاولة مع لاعبين بمستواك، بالنمط وعدد المقاعد المختارَين أعلاه.",
  lookingForTable: "جارٍ البحث عن طاولة…", cancel: "إلغاء",
  waitedFor: (n: number) => `الانتظار منذ ${n} ث`, botsIn: (n: number) => `يكمل اللاعبون الآليون الطاولة بعد ${n} ث`,
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
