"""Sentence machinery for the sample: alternations and generic filler sentences.

Templates use two notations:

- `<a|b|c>` picks one alternative (uniformly, with the caller's `random.Random`). An alternative
  written `=x` is *formal* wording (as printed in the policy); the others are *lay* wording (as a
  policyholder says it). When a group has both, the formal one is taken with probability
  `p_formal`, which is how question paraphrase strength is tuned.
- `{name}` / `{v[name]}` / `{ref[key]}` placeholders are filled later with `str.format_map`.

Alternations are resolved before placeholders, so one resolved template can be formatted for both
wording versions and the two versions differ only where their values differ.
"""

from __future__ import annotations

import random
import re

_GROUP = re.compile(r"<([^<>]*)>")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([?,.!;:])")


def expand(template: str, rng: random.Random, p_formal: float = 0.5) -> str:
    """Resolve every `<a|b|=c>` group of `template` (left to right, one draw per group)."""

    def pick(match: re.Match[str]) -> str:
        alts = match.group(1).split("|")
        formal = [a[1:] for a in alts if a.startswith("=")]
        lay = [a for a in alts if not a.startswith("=")]
        if formal and lay:
            pool = formal if rng.random() < p_formal else lay
        else:
            pool = formal or lay
        return pool[rng.randrange(len(pool))]

    text = " ".join(_GROUP.sub(pick, template).split())
    return _SPACE_BEFORE_PUNCT.sub(r"\1", text)  # an empty alternative before "?" or ","


def sentence_case(text: str) -> str:
    """Upper-case the first character only (keeps codes and proper nouns as they are)."""
    return text[:1].upper() + text[1:]


# Generic sentences that real wordings repeat from clause to clause. `{thing}` is the clause's
# topic in policy language, `{prod}` the product noun ("home insurance policy"), `{asset}` what
# the policy protects ("your home"). They pad clauses to realistic length and add the lexical
# noise (shared boilerplate across clauses) that makes retrieval non-trivial.
FILLER: dict[str, tuple[str, ...]] = {
    "cover": (
        "We will also pay <reasonable|necessary and reasonable> costs you incur to prevent further"
        " loss or damage to {thing} after an insured event, provided you tell us <about them|> as"
        " soon as <you can|possible>.",
        "Cover under this clause applies only during the period of insurance and only for events"
        " that happen within the territorial limits shown in your schedule.",
        "If {thing} <is damaged|suffers loss or damage>, we will decide whether to repair it,"
        " replace it or pay you the cost of doing so<, less any excess|>.",
        "<This cover is subject to|Cover under this clause is subject to> the limits in section 4"
        " and the exclusions in section 5<, and to the general conditions in section 7|>.",
        "Where your schedule shows that this cover has been removed or restricted, the schedule"
        " <takes precedence|applies> over the <wording|text> of this clause.",
        "We will not pay more than once for the same loss, even if it could be claimed under more"
        " than one clause of this <policy|wording>.",
        "You must take all reasonable steps to <keep|look after> {thing} <in good condition|with"
        " proper care> and to prevent loss or damage.",
        "If we settle a claim by replacement, we may use a supplier of our choice and we will tell"
        " you before we <do so|place the order>.",
        "This cover applies to sudden and unforeseen events, not to damage that developed"
        " <gradually|slowly> over <time|a period of weeks or months>.",
        "Where {thing} is <also insured|covered> elsewhere, we will only pay our proportionate"
        " share of the claim, as explained in the general conditions in section 7.",
        "Any payment we make will be based on costs at the date of the loss<, not the date you"
        " bought the item|>.",
        "If you are unsure whether {thing} is covered, please <contact us|speak to us|get in touch>"
        " before you make a claim<, and we will explain what is included|>.",
        "We may ask for proof of the value and ownership of {thing} when you claim, as described"
        " in section 6.",
        "Cover applies to property belonging to you or to members of your family who normally"
        " live with you, unless this wording says otherwise.",
        "Where this clause refers to the schedule, it means the schedule <current|in force> at the"
        " time of the loss.",
        "We will treat all loss or damage arising from one cause or event as one claim<, and one"
        " excess will apply|>.",
        "Once we have paid a claim in full, any item we have replaced or paid for becomes our"
        " property<, including any salvage|>.",
        "Following a claim, your cover is <automatically reinstated|restored> without extra"
        " premium unless we tell you otherwise.",
        "Any amount we pay for {thing} counts towards the overall limit shown in your schedule for"
        " the <relevant|same> section.",
        "Payments under this clause are made to you, or to anyone you have asked us to pay, such"
        " as a repairer or a finance company.",
        "If this cover overlaps with another clause of this {prod}, we will apply the clause that"
        " gives you the better outcome, but we will not pay twice.",
        "Nothing in this clause extends cover to loss or damage that is excluded elsewhere in this"
        " wording.",
        "Professional fees caused by the insured event are covered only where we have agreed them"
        " in writing before they are incurred.",
        "We will assess your claim fairly and in line with the terms of this {prod}, and we will"
        " explain our decision to you in writing.",
        "If you are entitled to recover any part of your loss from someone else, we may do so in"
        " your name<, at our own expense|>.",
        "The cover in this clause is in addition to, and does not reduce, the cover provided"
        " elsewhere in this section.",
        "The cover in this clause applies only if the premium has been paid and the loss happens"
        " during the period of insurance.",
        "We will pay the cost of replacing {thing} as new, except where this wording says that we"
        " will make a deduction for wear and tear.",
        "Where {thing} cannot be repaired or replaced with an exact match, we will pay for a"
        " reasonable alternative of <similar|comparable> quality.",
        "We will not pay for replacing undamaged parts of {thing} only because they no longer"
        " match the repaired or replaced parts.",
        "Cover for {thing} is provided on the basis that the information you gave us is correct"
        " and complete.",
        "Where we agree to pay for a temporary repair, its cost counts towards the amount we pay"
        " for the permanent repair.",
        "We will take account of any discount available to us from our suppliers when we settle"
        " a claim for {thing}.",
        "If there is more than one way to settle the claim, we will explain the options to you"
        " before any work is carried out.",
        "Cover for {thing} includes the reasonable cost of removing debris and making the site"
        " safe after an insured event.",
        "Where a repair would cost more than the value of {thing}, we may treat it as beyond"
        " economic repair and pay you its value instead.",
        "If your circumstances change during the period of insurance, the cover for {thing} may"
        " need to change too; see section 7.",
        "We may ask you to contribute to the cost if a repair leaves {thing} in a better"
        " condition than it was in before the loss.",
        "All cover in this part is subject to the definitions in section 2, which explain the"
        " meaning of the words printed in bold.",
        "We will not pay for loss or damage that happened before the start of this {prod}, even"
        " if you discover it later.",
        "Where two or more people are insured, the most we will pay for {thing} is the limit"
        " shown, not that amount for each person.",
        "If the cover shown in your schedule is different from this clause, please tell us"
        " straight away so that we can correct it.",
        "We will not pay for costs that would have been incurred in any event, such as routine"
        " maintenance of {thing}.",
        "Where a loss is paid under this clause, we will not pay for the same loss again under any"
        " other clause of this part.",
    ),
    "limits": (
        "All amounts in this section are in pounds sterling and include VAT where you cannot"
        " recover it.",
        "The limits apply for each claim unless this clause says that they apply for each item,"
        " each person or each period of insurance.",
        "Where your schedule shows a higher limit for {thing}, the schedule limit applies instead"
        " of the amount in this clause.",
        "You must pay the excess shown in this section, or in your schedule if it is higher, for"
        " each claim <you make|we accept>.",
        "If a claim is made under more than one section for the same incident, you will only have"
        " to pay the highest single excess.",
        "The excess is deducted from the amount we pay; where we repair or replace, you pay the"
        " excess <to us|to the supplier> instead.",
        "We will not pay more than the limit stated, even where the cost of repair or replacement"
        " is greater.",
        "If the value of {thing} is more than the limit, you may be able to increase it by telling"
        " us and paying an additional premium.",
        "We will tell you at renewal if any limit or excess has changed, and the new amounts apply"
        " from the renewal date.",
        "Limits are not index-linked unless your schedule <says so|shows that they are>.",
        "Where an item forms part of a pair or set, the limit applies to the pair or set as a"
        " whole.",
        "A limit is the most we will pay, not a valuation of your property; you should check that"
        " your sums insured are adequate.",
        "If you are under-insured, we may reduce the amount we pay in proportion to the"
        " <shortfall|amount of under-insurance>.",
        "Costs and expenses are included in, not added to, the limits in this clause unless we say"
        " otherwise.",
        "Any voluntary excess you chose when you took out the {prod} is added to the compulsory"
        " excess.",
        "Any limit for {thing} shown as 'in total' is the most we will pay during one period of"
        " insurance.",
        "We may agree in writing to a higher limit for a specified item if you send us a valuation"
        " or receipt.",
        "Excess amounts are shown per claim and are not refunded if the claim is later withdrawn.",
        "You can find your current limits and excesses in your schedule; if they differ from this"
        " section, the schedule <applies|takes precedence>.",
        "The limits in this section are not increased by the payment of a claim.",
        "The amounts in this clause are the most we will pay; they are not a promise that any"
        " particular amount will be paid.",
        "Where the schedule shows the word 'nil' against {thing}, no cover is provided for it.",
        "The excess is applied before any other deduction, such as a deduction for wear and tear.",
        "If your claim is for less than the excess, we will not make any payment, but you should"
        " still tell us about the incident.",
        "For claims involving both {thing} and other property, we will apply each relevant limit"
        " separately <but deduct|and deduct> only one excess.",
        "Where we pay a claim in instalments, the excess is deducted from the first payment.",
        "Limits that apply 'for each person' apply separately to each person named in the"
        " schedule.",
        "The limits and excesses in force on the date of the incident apply, not those in force"
        " on the date you tell us about it.",
        "If we agree to increase a limit during the period of insurance, we will confirm the new"
        " amount in a revised schedule.",
        "Where the cost of a claim is shared with another insurer, the excess is shared in the"
        " same proportion.",
        "Please check that the amounts shown for {thing} are enough to cover its full value; we"
        " will not pay more than these amounts.",
        "Amounts shown in this section do not include interest that a court may award, which we"
        " will pay in addition.",
        "Where a limit is stated for each claim, all loss arising from one incident counts as one"
        " claim.",
        "We will tell you the amount of any excess before we settle your claim.",
        "The amounts in this section may be varied by an endorsement shown in your schedule.",
    ),
    "exclusions": (
        "This exclusion applies to every section of this {prod} unless a clause says otherwise.",
        "If we rely on this exclusion to decline a claim, we will explain why in writing and tell"
        " you how to complain.",
        "We will not pay for any loss, damage, cost or liability directly or indirectly caused by"
        " or contributed to by the circumstances described <in this clause|above>.",
        "The burden of proving that this exclusion applies rests with us.",
        "Where this exclusion applies to only part of a claim, we will pay for the remainder in"
        " line with the terms of this {prod}.",
        "This exclusion does not reduce any cover that the law requires us to provide.",
        "Some of these circumstances may be insurable under an endorsement; ask us if you would"
        " like to <know more|discuss your needs>.",
        "We will not pay for any consequential loss, such as loss of earnings, arising from the"
        " events described here.",
        "This exclusion applies whether or not the loss is also caused by <an event|a peril> that"
        " would otherwise be covered.",
        "Please read this exclusion together with the definitions in section 2, as the meaning of"
        " some words is restricted.",
        "If you are unsure whether this exclusion applies to your circumstances, contact us before"
        " you incur any costs.",
        "We may still pay reasonable costs you incur to prevent further damage, even where the"
        " original loss is excluded, if we agree them first.",
        "This exclusion applies to any member of your family or any person acting on your behalf"
        " in the same way as it applies to you.",
        "If you ask us to, a claims handler who was not involved in the original assessment will"
        " review any decision to rely on this exclusion.",
        "Loss or damage excluded here is not covered even if another clause of this wording"
        " appears to include it.",
        "This exclusion is in addition to any restrictions shown in your schedule or in an"
        " endorsement.",
        "We will not refund any part of your premium because an exclusion applies.",
        "If you have suffered a loss that is excluded here, you may be able to claim from another"
        " source, such as a manufacturer's warranty.",
        "Nothing in this exclusion affects your statutory rights.",
        "We will not pay for any loss that is covered by a guarantee, warranty or service"
        " agreement.",
        "This exclusion applies throughout the period of insurance, including any time when"
        " cover has been extended.",
        "We will not pay for any costs you incur in investigating or proving the circumstances"
        " described in this exclusion.",
        "This exclusion does not apply where we have agreed in writing to provide cover and the"
        " agreement is shown in your schedule.",
        "We will not pay for loss that results from you ignoring the advice of a professional,"
        " such as a surveyor, an engineer or a doctor.",
        "Where an exclusion applies to part of an item, we will pay for any other part of the"
        " item that is covered.",
        "This exclusion also applies to the costs of any legal action arising from the"
        " circumstances described here.",
        "We will not pay for any fines, penalties or punitive damages.",
        "Exclusions are gathered in this section so that you can find them easily, but some"
        " clauses in section 3 also contain restrictions.",
        "Where we cannot decide whether this exclusion applies, we will give you the benefit of"
        " the doubt.",
        "This exclusion is explained in more detail in our guide to your cover, which is"
        " available on request.",
        "Nothing in this section removes the cover that we must provide by law to other people.",
        "This exclusion applies wherever the loss happens, including outside the territorial"
        " limits.",
        "If a loss is caused partly by an excluded event and partly by an insured event, we will"
        " pay for the part caused by the insured event.",
    ),
    "claims": (
        "Please have your policy number and the date of the incident to hand when you contact us.",
        "We may appoint a loss adjuster or other specialist to look into your claim on our behalf.",
        "You must not dispose of damaged items until we have had the chance to inspect them.",
        "You must give us, at your own expense, any information and evidence we reasonably ask"
        " for.",
        "If you do not follow this procedure, we may reduce or decline your claim where your"
        " failure has affected our ability to deal with it.",
        "We aim to acknowledge every new claim within two working days and to update you at"
        " least every ten working days.",
        "You can follow the progress of your claim <online|in your online account> or by calling"
        " us.",
        "Any letter or claim you receive from someone else about the incident must be sent to us"
        " unanswered.",
        "We have the right to take over and conduct the defence or settlement of any claim in your"
        " name.",
        "If you disagree with our decision, you can ask us to review it, and you may use the"
        " complaints procedure in section 1.",
        "You must cooperate fully with us, our agents and any investigator we appoint.",
        "Original documents are preferred; we may accept copies or photographs where the originals"
        " are not available.",
        "Costs you incur in providing evidence, such as obtaining a valuation, are not covered"
        " unless we have asked for them.",
        "We will pay claims by bank transfer to the account you <nominate|tell us about>.",
        "Where a claim involves a crime, we may share information with the police and other"
        " agencies.",
        "Where we cannot agree the amount of a claim, we may ask an independent expert to assess"
        " it.",
        "We may ask you to sign a statement confirming the details of what happened.",
        "Keep a note of everyone you speak to and any reference numbers you are given.",
        "If we need to visit you, we will arrange a convenient time in advance.",
        "If you are unsure whether to make a claim, you can call us to discuss it without it being"
        " recorded as a claim.",
        "We will give you a claim reference number, which you should quote whenever you contact"
        " us.",
        "Please do not carry out permanent repairs until we have agreed them, unless this clause"
        " says you may.",
        "If your claim is urgent, for example because you have been left without essential"
        " items, please tell us so that we can prioritise it.",
        "If you need help making a claim because of a disability or other circumstances, please"
        " tell us and we will make reasonable adjustments.",
        "We may use specialist companies to validate your claim, such as jewellers, engineers or"
        " medical experts.",
        "If we need more information, we will tell you exactly what we need and why.",
        "If someone else is responsible for your loss, we may try to recover our costs from them,"
        " and you must give us any help we reasonably need.",
        "You can appoint someone to deal with the claim for you, as long as you tell us in"
        " writing.",
        "We will send you a written summary of the settlement we propose before we make any"
        " payment.",
        "We may record telephone calls for training and to prevent fraud.",
        "You must tell us if you receive any money towards your loss from another source.",
        "If you have to pay costs to reduce the loss, keep the receipts and send them with your"
        " claim.",
        "We may ask you to attend an interview if your claim is complex or involves a large"
        " amount.",
        "Claims are handled by our own claims team and, for some types of claim, by specialist"
        " partners acting for us.",
    ),
    "conditions": (
        "This condition applies to everyone insured under this {prod}.",
        "If you do not comply with this condition, we may refuse to pay a claim, reduce the amount"
        " we pay or cancel your {prod}.",
        "We will act fairly when we decide whether a breach of this condition affects a claim.",
        "We will only rely on this condition where the breach is relevant to the loss or"
        " <increased|contributed to> the risk.",
        "Your schedule and any endorsements may contain further conditions that apply to you.",
        "We may change this condition at renewal, and we will tell you about any change before it"
        " takes effect.",
        "If you are not sure how this condition affects you, please ask us or your broker.",
        "When we write to you, we will use the most recent address you have given us.",
        "References to 'you' include anyone insured under this {prod} where the context allows.",
        "We will not unreasonably refuse our agreement where this condition requires it.",
        "Any notice you give us under this condition must be in writing or through your online"
        " account.",
        "Headings are included for ease of reference and do not affect the meaning of this"
        " condition.",
        "You must comply with every term of this {prod} that requires you to do, or not to do,"
        " something.",
        "This condition forms part of the contract between you and us.",
        "A breach of this condition by one insured person will not affect the cover of another"
        " insured person who was not aware of it.",
        "We may ask you to confirm in writing that you have complied with this condition.",
        "If you are in doubt about whether you need to tell us something, please tell us anyway.",
        "Where this condition asks you to act 'as soon as possible', we mean as soon as it is"
        " reasonably practical to do so.",
        "You must make sure that everyone insured under this {prod} is aware of this condition.",
        "Nothing in this condition gives rights to anyone who is not a party to this contract,"
        " except as the law requires.",
        "This condition continues to apply after a claim has been made.",
        "We will write to you if we believe that you have not complied with this condition, and"
        " explain what you need to do.",
        "If any part of this {prod} is found to be unenforceable, the rest of it still applies.",
        "Where we waive this condition on one occasion, we are not obliged to waive it again.",
    ),
    "definitions": (
        "Where this word appears in bold in this wording, it has this meaning.",
        "This definition applies wherever the term is used, including in your schedule and any"
        " endorsement.",
        "If your schedule gives a different meaning, the schedule applies.",
        "This meaning applies throughout this {prod} unless a clause says otherwise.",
        "Examples given in this definition are illustrations only and are not a complete list.",
        "If a word is not defined, it has its ordinary meaning.",
        "Defined words are listed in alphabetical order in this section.",
        "Please ask us if the meaning of any defined word is unclear.",
        "A definition may be extended or restricted by an endorsement shown in your schedule.",
    ),
    "other": (
        "Please read this wording carefully and keep it in a safe place.",
        "If anything in this wording is unclear, please contact us or your broker.",
        "We can provide this wording in large print, braille or audio on request.",
        "Your schedule shows who is insured, the sections of cover you have chosen and the period"
        " of insurance.",
        "This wording does not contain every term that may apply to you; your schedule and any"
        " endorsements form part of the contract.",
        "Please check your schedule carefully and tell us straight away if anything is wrong.",
        "This wording replaces any earlier version that applied to your policy before the date"
        " shown in clause 1.1.",
        "We are authorised by the Prudential Regulation Authority and regulated by the Financial"
        " Conduct Authority and the Prudential Regulation Authority.",
        "You can find details of our regulation on the Financial Services Register.",
        "Your policy is an annual contract and, unless either of us decides otherwise, it will"
        " renew each year.",
        "We may change the terms of your policy at renewal, and we will tell you at least 21 days"
        " before the renewal date.",
    ),
}


# Sentences only one product's wordings would print; one is added to each non-shared clause.
PRODUCT_FILLER: dict[str, tuple[str, ...]] = {
    "home": (
        "If the home is a flat, buildings cover applies to your share of the structure and of any"
        " common parts you are responsible for.",
        "If the home is listed or of non-standard construction, you must tell us, as repairs may"
        " cost more.",
        "Repairs to the buildings will use materials of a similar quality and, where possible, a"
        " similar appearance.",
        "If you rent the home, you are covered for damage to the landlord's fixtures and fittings"
        " that you are legally responsible for.",
        "Where a mortgage lender has an interest in the home, we may tell the lender about any"
        " claim or cancellation.",
        "If the home is undergoing building work, please tell us before the work starts.",
        "Buildings cover includes the cost of clearing blocked drains where the blockage is caused"
        " by an insured event.",
        "If you sell the home, cover for the buyer continues until the sale is completed, unless"
        " they have insurance of their own.",
        "Garden sheds and greenhouses must be kept in a reasonable state of repair.",
        "Swimming pools and hot tubs are covered only while they are permanently installed.",
        "Contents kept in a garage or outbuilding are covered against theft only where there was"
        " forced entry.",
        "Tenants' improvements to the home are covered as contents unless the lease makes the"
        " landlord responsible for them.",
    ),
    "motor": (
        "Cover applies whether the vehicle is being driven, parked or transported, for example on"
        " a ferry or a train.",
        "If the vehicle is fitted with a dash camera, its footage may help us to settle a claim"
        " quickly.",
        "Modifications that change the vehicle's performance or appearance must be declared to us"
        " before the vehicle is driven.",
        "Where the vehicle is leased or on hire purchase, the finance company may have an interest"
        " in any claim payment.",
        "If the vehicle is declared off the road, cover for driving it on public roads does not"
        " apply.",
        "Repairs may use parts that are not made by the manufacturer but are of matching quality.",
        "You must show your certificate of motor insurance to the police when they ask for it.",
        "If you change your vehicle, cover for the old vehicle ends when you tell us about the new"
        " one.",
        "A caravan or trailer towed by the vehicle is not itself covered unless your schedule says"
        " so.",
        "Electric and hybrid vehicles may need specialist repairers, which we will arrange through"
        " our network.",
        "Your no claim discount may be reduced if we make a payment that we cannot recover from"
        " someone else.",
        "Valeting and cleaning costs are not covered unless they are part of a repair we have"
        " agreed.",
    ),
    "travel": (
        "Cover applies to trips booked before or during the period of insurance, as long as the"
        " trip starts during it.",
        "If your trip is extended for reasons beyond your control, cover continues until you can"
        " return home.",
        "You must live in your home area and be registered with a doctor there to be covered.",
        "Children travelling with an insured adult are covered at no extra premium if they are"
        " named in the schedule.",
        "On an annual policy, each trip is treated separately for the purpose of limits and"
        " excesses.",
        "Keep copies of your passport, tickets and insurance details separately from the"
        " originals.",
        "Local medical facilities may differ from those at home, and our medical officers will"
        " advise on the best option.",
        "Costs incurred after the end of the trip are covered only if they arise directly from an"
        " emergency during it.",
        "If your destination requires a visa, you are responsible for obtaining it before you"
        " travel.",
        "Trips for work are covered only if the work is clerical or administrative and your"
        " schedule shows business travel.",
        "Activities you book locally are covered only if they appear on our list of covered"
        " activities.",
        "Please read the advice about your destination published by the Foreign, Commonwealth and"
        " Development Office before you travel.",
    ),
}
