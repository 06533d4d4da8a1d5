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


# Generic sentences that real wordings repeat from clause to clause: reading guidance, pointers to
# other parts, offers of help. They state no policy fact a question could ask (no amounts, time
# limits, what is or is not covered, how excesses combine), so they can never contradict a clause
# or answer a question for it. Each reads on its own anywhere in a clause (no "also", no "this"
# pointing at the previous sentence). `{thing}` (the clause topic, a noun phrase such as "the
# standard excess" or "your claim") appears only after "about", where any noun phrase reads right.
# `{prod}` is the product noun ("home insurance policy").
FILLER: dict[str, tuple[str, ...]] = {
    "cover": (
        "Please read this clause together with the definitions in section 2, which explain the"
        " words printed in bold.",
        "The limits that apply to this cover are set out in section 4<, and the exclusions in"
        " section 5|>.",
        "If you have a question about {thing}, please <contact us|speak to us|get in touch>"
        " before you make a claim.",
        "Your schedule shows which sections of this {prod} you have chosen.",
        "Headings in this part are for ease of reference and do not change the meaning of a"
        " clause.",
        "This part describes what is insured; what is not insured is set out in section 5.",
        "How to make a claim is explained in section 6.",
        "Our guide to your cover, available on request, gives worked examples about {thing}.",
        "If anything in this clause is unclear, your broker or our customer team can explain it.",
        "The general conditions in section 7 apply to this cover in the same way as to the rest"
        " of this {prod}.",
        "We have written this clause in plain language; where a word has a special meaning, it"
        " is defined in section 2.",
        "When you renew, please check that the cover described here still meets your needs.",
        "The cover in this part is set out clause by clause, so that each type of loss can be"
        " found in one place.",
        "Claims under this clause follow the claims procedure in section 6.",
        "Please keep this wording with your schedule, as the two are read together.",
        "You can ask us at any time to explain how this clause applies to your circumstances.",
        "Our aim is to set out clearly what this clause says about {thing}, so that you know"
        " where you stand before anything goes wrong.",
        "Please tell us if you think the cover described here does not match what you asked for.",
    ),
    "limits": (
        "The amounts in this clause are printed in your schedule as well, for ease of reference.",
        "Please read this clause together with the cover described in section 3.",
        "If you have a question about {thing}, <please contact us|please speak to us|our"
        " customer team can help> before you make a claim.",
        "The words printed in bold in this clause are defined in section 2.",
        "This section brings the main limits and excesses together so that you can find them in"
        " one place.",
        "When you renew, please check that the amounts described here are still right for you.",
        "It is worth checking the value of your property from time to time<, so that you can"
        " choose the right cover|>.",
        "Our guide to your cover gives worked examples about {thing}.",
        "Headings in this section are for ease of reference only.",
        "If anything in this clause is unclear, your broker or our customer team can explain it.",
        "The figures in this clause are the ones that apply to this edition of the wording.",
        "Amounts in this section are shown in pounds sterling.",
        "You can ask us at any time how this clause would apply to your circumstances.",
        "Limits and excesses are set out clause by clause, so that each can be read on its own.",
        "Please read the amounts in this clause together with the cover described in section 3"
        " and the exclusions in section 5, which explain when the cover applies.",
        "If you are thinking about making a claim and have a question about {thing}, our"
        " customer team can talk you through this clause before you contact the claims line.",
        "When you compare the amounts in this section with your own property, remember that the"
        " words printed in bold have the meanings given in section 2.",
    ),
    "exclusions": (
        "Please read this exclusion together with the definitions in section 2, as the meaning"
        " of some words is restricted.",
        "If you are unsure whether this exclusion applies to your circumstances, please contact"
        " us<, and we will explain it|>.",
        "Exclusions are gathered in this section so that you can find them easily.",
        "Our guide to your cover gives examples of how this exclusion works in practice.",
        "This exclusion is written in plain language; where a word has a special meaning, it is"
        " printed in bold.",
        "The cover that this exclusion limits is described in section 3.",
        "Headings in this section are for ease of reference and do not change the meaning of an"
        " exclusion.",
        "If you have a question about {thing}, please ask us <before you make a claim|at any"
        " time>.",
        "This exclusion should be read together with your schedule and any endorsements shown"
        " in it.",
        "The exclusions are set out one by one so that each can be read on its own.",
        "Please tell us if you think this exclusion has been applied to you in error.",
    ),
    "claims": (
        "The steps in this clause help us to deal with your claim <quickly|promptly> and fairly.",
        "If you have a question about {thing}, our claims team can <help|explain what to do>.",
        "Please read this clause together with the general conditions in section 7.",
        "The words printed in bold in this clause are defined in section 2.",
        "Our guide to making a claim, available on request, <gives examples|explains each step>"
        " in more detail.",
        "Keeping a note of what happened, and when, will help when you talk to us.",
        "This clause explains what we need from you; section 3 explains what is covered.",
        "Headings in this part are for ease of reference only.",
        "The claims procedure is set out clause by clause, so that you can find the step you need.",
        "If anything in this clause is unclear, please ask us before you act on it.",
        "Our aim is to settle every valid claim fairly and without unnecessary delay.",
    ),
    "conditions": (
        "Please read this condition together with the definitions in section 2.",
        "If you are not sure how this condition affects you, please ask us or your broker.",
        "Headings are included for ease of reference and do not affect the meaning of this"
        " condition.",
        "This condition forms part of the contract between you and us.",
        "If you have a question about {thing}, please <contact us|speak to us> <before you"
        " act|at any time>.",
        "Our guide to your policy explains this condition with examples.",
        "We have tried to set out this condition in plain language.",
        "You may find it helpful to keep this condition with your schedule.",
        "The conditions are set out one by one so that each can be read on its own.",
    ),
    "definitions": (
        "Where this word appears in bold in this wording, it has this meaning.",
        "Please ask us if the meaning of this word is unclear.",
        "The same meaning applies wherever the word is printed in bold.",
        "If a word is not defined, it has its ordinary meaning.",
    ),
    "other": (
        "Please read this wording carefully and keep it in a safe place.",
        "If anything in this wording is unclear, please contact us or your broker.",
        "Headings in this wording are for ease of reference only.",
        "The words printed in bold are defined in section 2.",
        "Please keep this wording with your schedule, as the two are read together.",
        "If you have a question about {thing}, please <contact us|speak to us> at any time.",
    ),
}


# Sentences only one product's wordings would print (tone, not terms); a non-shared clause gets
# one with probability `wordings.P_FLAVOUR`.
PRODUCT_FILLER: dict[str, tuple[str, ...]] = {
    "home": (
        "We know that damage to your home can be upsetting, and we aim to make things as simple"
        " as we can.",
        "Looking after your home well is the best way to avoid the need to claim.",
        "Our home claims team is used to dealing with problems of every size, from a broken"
        " window to a major flood.",
    ),
    "motor": (
        "We know that an accident or a theft can be stressful, and we aim to keep you moving.",
        "Careful driving and a well-kept vehicle are the best way to avoid the need to claim.",
        "Our motor claims team deals with everything from a chipped windscreen to a major"
        " accident.",
    ),
    "travel": (
        "We know that problems abroad can be stressful, and our team aims to help wherever you"
        " are.",
        "Planning ahead is the best way to avoid the need to claim while you are away.",
        "Our travel assistance team deals with everything from lost luggage to a medical"
        " emergency.",
    ),
}
