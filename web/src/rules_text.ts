// A preset's rules in sentences, from its effective options (RuleOptions, as the engine resolves them:
// RulesService.StartRound answers them in RoundState.options), in English and Arabic; the words follow
// docs/rules.md §1–§10. Each entry: a heading and its sentences, an option that does not apply left out.
import { DiscardTake, EndJoker, ExhaustedRound, GoingOut, HandFinish, JokersPerMeld, OpeningMode, OpeningTotal,
  OutOnFirstTurn, PartnershipOpening, SetJokerRetrieval, TakeReturn, TieBreak, type RuleOptions } from "./gen/hand/v1/options_pb";
import { getLang, num } from "./i18n";

type Section = [string, string[]];

export function rulesOf(o: RuleOptions): Section[] {
  const ar = getLang() === "ar";
  const w = (en: string, arabic: string) => (ar ? arabic : en);
  const n = (x: number | undefined) => num(x ?? 0);
  const th = n(o.openingThreshold);
  const players: string[] = [o.partnership
    ? w("Four players in two teams of two; partners sit opposite.", "أربعة لاعبين في فريقين من لاعبَين؛ الشريكان متقابلان.")
    : w(`2 to ${n(o.maxPlayers)} players, each for themselves.`, `من ${num(2)} إلى ${n(o.maxPlayers)} لاعبين، كلٌّ لنفسه.`)];
  const opening = [o.opening === OpeningMode.ESCALATING
    ? w(`The first to open needs ${th} points; every later opener must beat the last opening total by at least one point.`,
      `أول من ينزل يحتاج ${th} نقطة، وكل من ينزل بعده يجب أن يتجاوز مجموع آخر نزول بنقطة على الأقل.`)
    : w(`You open by laying, in one go, new melds worth at least ${th} points.`, `تنزل أول مرة بمجموعات جديدة دفعة واحدة قيمتها ${th} نقطة على الأقل.`),
  o.openingTotal === OpeningTotal.SUBMISSION
    ? w("The opening total is the opening submission alone.", "مجموع النزول هو قيمة النزول نفسه فقط.")
    : w("The opening total is everything you lay in that turn.", "مجموع النزول هو كل ما تنزله في ذلك الدور."),
  w("Before opening you may not lay off or retrieve a joker.", "قبل النزول لا يجوز الإلصاق ولا استرجاع الجوكر.")];
  if (o.partnership) opening.push(o.partnershipOpening === PartnershipOpening.TEAM
    ? w("Once either partner opens, the whole team is open.", "إذا نزل أحد الشريكين صار الفريق كله نازلاً.")
    : w("Each partner must open by themselves.", "على كل شريك أن ينزل بنفسه."));
  const take = [{
    [DiscardTake.OPEN_REQUIRED]: w("Taking the top of the pile: a player who has not opened must open that turn; the card may be part of it.",
      "أخذ ورقة المرمى: من لم ينزل بعد يجب أن ينزل في الدور نفسه، ويجوز أن تكون الورقة منها."),
    [DiscardTake.MELD_REQUIRED]: w("Taking the top of the pile: you must lay at least one new meld that turn (your opening if you have not opened).",
      "أخذ ورقة المرمى: يجب أن تنزل مجموعة جديدة واحدة على الأقل في الدور نفسه (وهي نزولك إن لم تكن نزلت)."),
    [DiscardTake.USE_IF_OPENING]: w("Taking the top of the pile is free; but if you open that turn, the card must be in your opening.",
      "أخذ ورقة المرمى بلا شرط؛ لكن إن نزلت في الدور نفسه فيجب أن تكون الورقة ضمن نزولك."),
  }[o.discardTake as number] ?? w("Taking the top of the pile: the card must go into a new meld that turn with at least two cards of your hand, and a player who has not opened must open that turn.",
    "أخذ ورقة المرمى: يجب أن تدخل الورقة في مجموعة جديدة في الدور نفسه مع ورقتين على الأقل من يدك، ومن لم ينزل بعد يجب أن ينزل في الدور نفسه."),
  {
    [TakeReturn.BY_DISCARD]: w("Discarding the card you just took returns it, and you draw from the stock instead.", "رمي الورقة التي أخذتها للتو يرجعها، وتسحب من الكومة بدلاً منها."),
    [TakeReturn.NEVER]: w("A take is final: it is refused if you could not then meet its duty.", "الأخذ نهائي: ويُرفض إن لم يكن بإمكانك الوفاء بشرطه."),
  }[o.takeReturn as number] ?? w("Until its duty is met you may return the taken card and draw from the stock.", "ما دام شرط الأخذ لم يتحقق يجوز أن ترجع الورقة وتسحب من الكومة."),
  w("The taken card may not be discarded in the same turn.", "لا يجوز رمي الورقة المأخوذة في الدور نفسه.")];
  const jokers = [o.jokersPerMeld === JokersPerMeld.SECOND_BY_LAYOFF
    ? w("A new meld holds at most one joker; a second may be laid off onto a run of at least 4 cards.", "المجموعة الجديدة فيها جوكر واحد على الأكثر؛ ويجوز إلصاق جوكر ثانٍ على سلسلة من ٤ أوراق على الأقل.")
    : w("A meld holds at most one joker.", "المجموعة فيها جوكر واحد على الأكثر."),
  o.endJoker === EndJoker.DECLARED
    ? w("A joker at the open end of a run stands for the card you name (the lower one if you name none).", "الجوكر في طرف السلسلة المفتوح يقوم مقام الورقة التي تسمّيها (الأدنى إن لم تسمِّ).")
    : w("A joker at the open end of a run stands for the lower card.", "الجوكر في طرف السلسلة المفتوح يقوم مقام الورقة الأدنى."),
  o.setJokerRetrieval === SetJokerRetrieval.BOTH_MISSING
    ? w("A joker in a set of three is retrieved only with both missing suits at once.", "الجوكر في مجموعة من ثلاث أوراق لا يُسترجع إلا بالنوعين الناقصين معاً.")
    : w("A joker in a set of three is retrieved with one card of a missing suit.", "الجوكر في مجموعة من ثلاث أوراق يُسترجع بورقة واحدة من نوع ناقص."),
  w(`An ace at the bottom of a run (A-2-3) counts ${n(o.lowAceValue)}; a joker left in hand counts ${n(o.jokerInHand)}.`,
    `الآس في أسفل السلسلة (آس-٢-٣) بـ ${n(o.lowAceValue)}؛ والجوكر الباقي في اليد بـ ${n(o.jokerInHand)}.`)];
  const out = [o.goingOut === GoingOut.MELD_OUT_ALLOWED
    ? w("You may go out by melding or laying off your last cards, without a discard.", "يجوز أن تخرج بإنزال آخر أوراقك أو إلصاقها دون رمي.")
    : w("Every turn ends with a discard: you go out by discarding your last card.", "كل دور ينتهي برمي ورقة: تخرج برمي آخر ورقة."),
  o.outOnFirstTurn === OutOnFirstTurn.FORBIDDEN
    ? w("You may not go out on your first turn.", "لا يجوز الخروج في دورك الأول.") : w("You may go out on your first turn.", "يجوز الخروج في دورك الأول.")];
  if ((o.minHandAfterLayoff ?? 0) > 0) out.push(w(`A lay-off must leave you at least ${n(o.minHandAfterLayoff)} cards.`, `الإلصاق يجب أن يُبقي في يدك ${n(o.minHandAfterLayoff)} ورقة على الأقل.`));
  out.push(o.handFinish === HandFinish.OWN_MELDS_OK
    ? w("A Hand: going out in one turn having laid nothing before; lay-offs only on melds you laid that turn.", "الهاند: أن تخرج في دور واحد دون أن تكون أنزلت شيئاً قبله؛ والإلصاق فقط على مجموعات أنزلتها في ذلك الدور.")
    : w("A Hand: going out in one turn with new melds only, having laid nothing before.", "الهاند: أن تخرج في دور واحد بمجموعات جديدة فقط دون أن تكون أنزلت شيئاً قبله."));
  const scoring = [w(`Points are penalties, lower is better: going out scores ${n(o.winnerBonus)}; never opened scores ${n(o.unopenedPenalty)}; otherwise the cards left.`,
    `النقاط عقوبات والأقل أفضل: من يخرج يأخذ ${n(o.winnerBonus)}، ومن لم ينزل ${n(o.unopenedPenalty)}، وغيرهما قيمة الورق الباقي.`),
  (o.handMultiplier ?? 2) > 1 ? w(`A Hand multiplies every score of the round by ${n(o.handMultiplier)}.`, `الهاند يضاعف نقاط الجولة كلها ×${n(o.handMultiplier)}.`)
    : w("A Hand carries no bonus.", "الهاند بلا مضاعفة."),
  o.exhaustedRound === ExhaustedRound.VOID
    ? w("A round whose stock runs out has no result: every score is 0.", "الجولة التي تنفد كومتها بلا نتيجة: نقاط الجميع صفر.")
    : w("A round whose stock runs out is scored as it stands, with no winner.", "الجولة التي تنفد كومتها تُحسب كما هي، بلا فائز."),
  {
    [TieBreak.PLAYOFF]: w("A tie for the lowest total is settled by deciding rounds.", "التعادل على أقل مجموع يُحسم بجولات فاصلة."),
    [TieBreak.SHARED]: w("Those tied for the lowest total share the win.", "المتعادلون على أقل مجموع يتقاسمون الفوز."),
  }[o.tieBreak as number] ?? w("A tie for the lowest total goes to whoever went out in more rounds.", "التعادل على أقل مجموع لمن خرج في جولات أكثر.")];
  return [[w("Players", "اللاعبون"), players], [w("Opening", "النزول"), opening], [w("Taking the discard", "الأخذ من المرمى"), take],
    [w("Jokers and aces", "الجوكر والآس"), jokers], [w("Going out", "الخروج"), out], [w("Scoring and the match", "الحساب والمباراة"), scoring]];
}
