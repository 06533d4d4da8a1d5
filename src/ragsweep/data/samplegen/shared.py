"""Clauses every product prints almost verbatim: the introduction, general exclusions, general
conditions and the common definitions. Product-specific words come in through placeholders
(`{prod}`, `{asset}`, `{v[...]}`), so the same clause reads nearly identically in all six wordings.
"""

from __future__ import annotations

from ragsweep.data.samplegen.spec import Ask, ClauseDef

ABOUT: tuple[ClauseDef, ...] = (
    ClauseDef(
        "abt.documents",
        "Your policy documents",
        "your policy documents",
        (
            "This wording, form {form}, sets out the terms of your {prod} with {insurer}.",
            "Your contract with us is made up of this wording, your schedule, any endorsements"
            " shown in your schedule and the information you gave us when you applied or"
            " renewed.",
            "Form {form} applies to policies that start or renew on or after {start}; a policy"
            " that started earlier stays on form {prev_form} until its next renewal date.",
            "The form code is printed at the foot of every page of this wording and on your"
            " schedule, so you can check which version applies to you.",
            "If the form code on your schedule does not match the code on this wording, please"
            " contact us and we will send you the correct wording.",
        ),
        fill=3,
        shared=True,
        lay="the bit about which documents make up the policy",
    ),
    ClauseDef(
        "abt.reading",
        "How to read this wording",
        "this wording",
        (
            "Words with a special meaning are printed in bold and explained in section 2.",
            "Clauses are numbered by part, so clause 4.3 is the third clause of part 4, and a"
            " reference to section 5 means every clause in part 5.",
            "When we say we, us or our, we mean {insurer}; when we say you or your, we mean the"
            " policyholder named in the schedule and, where the context allows, anyone else"
            " insured under this {prod}.",
            "Each part begins with a short summary, but only the numbered clauses set out the"
            " terms of the contract.",
            "Notes printed in a shaded box are there to help you and do not form part of the"
            " contract.",
        ),
        fill=3,
        shared=True,
    ),
    ClauseDef(
        "abt.endorsements",
        "Endorsements",
        "an endorsement",
        (
            "Endorsements change the standard cover in this wording, either by adding cover or by"
            " restricting it.",
            "An endorsement applies to you only if its code is shown in your schedule.",
            "The endorsements that may apply to this wording are: {endorsement_list}.",
            "Where an endorsement conflicts with a clause of this wording, the endorsement"
            " applies, but only to the extent of the conflict.",
            "We may add an endorsement at renewal, and we will tell you before it takes effect.",
        ),
        fill=2,
        shared=True,
        lay="the list of endorsements",
    ),
    ClauseDef(
        "abt.cooling",
        "Your right to cancel",
        "your right to cancel",
        (
            "You have 14 days from the day you receive your policy documents, or from the start"
            " of cover if that is later, to cancel this {prod} without giving a reason.",
            "This is known as the cooling-off period.",
            "If you cancel within the cooling-off period we will refund your premium in full,"
            " provided you have not made a claim.",
            "If you have made a claim, or an incident has happened that may lead to a claim, you"
            " must pay the full premium for the period of insurance.",
            "To cancel, tell us in writing, by telephone or through your online account.",
            "If you cancel after the cooling-off period, clause {ref[cond.cancel_you]} applies"
            " instead.",
        ),
        fill=2,
        shared=True,
        lay="the cooling off bit",
        asks=(
            Ask(
                "procedures",
                (
                    "Can I cancel <my policy|=this policy> <and get all my money back|for a full"
                    " refund> <if I change my mind|in the first couple of weeks>?",
                ),
                supports=("cond.cancel_you",),
                facts=(0, 2),
            ),
            Ask(
                "procedures",
                (
                    "I only bought <it|the cover> last week and found a cheaper quote, how do I"
                    " <cancel|get out of it>?",
                ),
                supports=("cond.cancel_you",),
                facts=(0, 4),
            ),
            Ask(
                "procedures",
                (
                    "Is there a <cooling off|=cooling-off> period <where I can cancel|to back"
                    " out>?",
                    "changed my mind about the <policy|cover> after 10 days, <too late to"
                    " cancel|can i still cancel>?",
                ),
                supports=("cond.cancel_you",),
                facts=(0,),
            ),
        ),
    ),
    ClauseDef(
        "abt.complaints",
        "Making a complaint",
        "your complaint",
        (
            "If you are unhappy with our service, please contact the team that handled your"
            " policy or claim first, as they can usually put things right straight away.",
            {
                "2024": "We will acknowledge your complaint within five working days and aim to"
                " send you our final response within eight weeks.",
                "2025": "We will acknowledge your complaint within three working days and aim"
                " to send you our final response within eight weeks.",
            },
            "If you are not satisfied with our final response, or if we have not sent one within"
            " eight weeks, you may refer your complaint to the Financial Ombudsman Service.",
            "You must contact the Financial Ombudsman Service within six months of the date of"
            " our final response.",
            "Using our complaints procedure does not affect your right to take legal action.",
            "If we cannot meet our obligations, you may be entitled to compensation from the"
            " Financial Services Compensation Scheme.",
        ),
        fill=2,
        shared=True,
        lay="the complaints section",
        asks=(
            Ask(
                "procedures",
                (
                    "How do I <complain|make a complaint> about <the way my claim was"
                    " handled|your service>?",
                ),
                facts=(0, 2),
            ),
            Ask(
                "procedures",
                (
                    "<Can|How can> I take my complaint to the <ombudsman|=Financial Ombudsman"
                    " Service> and how long do I have?",
                ),
                facts=(2, 3),
            ),
            Ask(
                "procedures",
                ("How <quickly|soon> will you <reply to|acknowledge> a complaint?",),
                facts=(1,),
            ),
            Ask(
                "procedures",
                (
                    "<I thought|Someone told me> you had <five|5> working days to <acknowledge|"
                    "reply to> a complaint, is that still <right|the case>?",
                    "Has the time you take to <acknowledge|confirm you got> a complaint"
                    " <changed|got shorter> <this year|since the new wording>?",
                ),
                hinge="wording",
                facts=(1,),
            ),
        ),
    ),
    ClauseDef(
        "abt.data",
        "How we use your information",
        "your personal information",
        (
            "We use the personal information (personal data) you give us to provide this"
            " {prod}, to handle claims and to prevent and detect fraud.",
            "We may share it with other insurers, with fraud prevention agencies and with"
            " databases such as the Claims and Underwriting Exchange.",
            "We keep your information only for as long as we need it, which is normally seven"
            " years after your policy ends.",
            "You can ask for a copy of the information we hold about you, and ask us to correct"
            " anything that is wrong.",
            "Our full privacy notice is on our website, and we will send you a printed copy if"
            " you ask.",
        ),
        fill=2,
        shared=True,
        asks=(
            Ask(
                "procedures",
                (
                    "Do you share my <details|personal data> with other <insurers|companies> to"
                    " check for fraud?",
                ),
                facts=(1,),
            ),
            Ask(
                "procedures",
                (
                    "How <long|many years> do you keep my <data|personal information> after I"
                    " <leave|cancel>?",
                ),
                facts=(2,),
            ),
        ),
    ),
)

EXCLUSIONS_FIRST: tuple[ClauseDef, ...] = (
    ClauseDef(
        "exc.war",
        "War, terrorism and civil unrest",
        "war or terrorism",
        (
            "We will not pay for any loss, damage, injury or liability caused by war, invasion,"
            " act of foreign enemy, hostilities, civil war, rebellion, revolution or military"
            " power.",
            "We will not pay for loss or damage caused by any act of terrorism, or by any action"
            " taken to control, prevent or suppress an act of terrorism.",
            "Riot and civil commotion are covered only where this wording says so; see section 3.",
            "{v[war_note]}",
        ),
        fill=3,
        shared=True,
        code_no=1,
        lay="the war and terrorism exclusion",
        asks=(
            Ask(
                "exclusions",
                (
                    "Am I covered if {v[asset_lay]} <is damaged|gets damaged> in a terrorist"
                    " <attack|incident>?",
                ),
                facts=(1,),
            ),
            Ask(
                "exclusions",
                (
                    "Does the <policy|cover> pay out for <war damage|damage from a war or"
                    " uprising>?",
                ),
                facts=(0,),
            ),
        ),
    ),
    ClauseDef(
        "exc.nuclear",
        "Radioactive contamination and sonic bangs",
        "radioactive contamination",
        (
            "We will not pay for loss, damage or liability caused by ionising radiation or"
            " radioactive contamination from any nuclear fuel or nuclear waste.",
            "We will not pay for loss or damage caused by pressure waves from aircraft or other"
            " flying objects travelling at or above the speed of sound.",
            "This exclusion applies even if the event happened outside the territorial limits.",
        ),
        fill=3,
        shared=True,
        code_no=2,
        asks=(
            Ask(
                "exclusions",
                (
                    "<What if|Am I covered if> a <sonic boom|supersonic jet> <breaks|cracks> my"
                    " windows?",
                ),
                facts=(1,),
            ),
            Ask(
                "exclusions",
                ("Is <nuclear contamination|radiation from a nuclear accident> covered?",),
                facts=(0,),
            ),
        ),
    ),
    ClauseDef(
        "exc.deliberate",
        "Deliberate acts",
        "deliberate damage",
        (
            "We will not pay for any loss or damage caused deliberately by you, by a member of"
            " your family or by anyone you have allowed to use {asset}.",
            "We will not pay for any loss or damage you cause or allow to happen as part of an"
            " illegal act.",
            "This exclusion does not apply to loss or damage caused by someone who is not"
            " insured under this {prod} and who acted without your knowledge or consent.",
        ),
        fill=3,
        shared=True,
        code_no=3,
        asks=(
            Ask(
                "exclusions",
                (
                    "If my <partner|son|flatmate> <wrecks|breaks> something on purpose, <can I"
                    " claim|is that covered>?",
                    "Are you going to pay if <someone in my family|a family member> damages"
                    " things <deliberately|on purpose>?",
                ),
                facts=(0,),
            ),
        ),
    ),
    ClauseDef(
        "exc.sanctions",
        "Sanctions",
        "sanctions",
        (
            "We will not provide cover, pay any claim or provide any benefit under this {prod}"
            " if doing so would expose us to any sanction, prohibition or restriction under"
            " United Nations resolutions or the trade or economic sanctions, laws or regulations"
            " of the United Kingdom, the European Union or the United States of America.",
            "If a sanction applies, this {prod} will have no effect for the person or the"
            " territory concerned.",
        ),
        fill=2,
        shared=True,
        code_no=4,
    ),
)

EXCLUSION_CYBER = ClauseDef(
    "exc.cyber",
    "Computer viruses and electronic data",
    "electronic data",
    (
        "We will not pay for loss of, damage to or the cost of restoring electronic data,"
        " software or computer programs, however caused.",
        "We will not pay for loss or damage caused by a computer virus, hacking or the failure of"
        " any computer, chip or device to recognise or process data correctly.",
        "This exclusion does not apply to fire or explosion that results from such a failure, if"
        " the fire or explosion would otherwise be covered.",
    ),
    fill=3,
    shared=True,
    code_no=17,
    asks=(
        Ask(
            "exclusions",
            (
                "<Am I|Are we> covered if a <virus|hacker> <wipes|deletes> <my photos|files on my"
                " laptop>?",
                "Do you pay to <recover|restore> <lost data|files> after a <cyber attack|hack>?",
            ),
            facts=(0, 1),
        ),
    ),
)

# Common definitions, printed in every product's section 2.
DEF_EXCESS = ClauseDef(
    "def.excess",
    "Excess",
    "the excess",
    (
        "Excess means the amount you must pay towards each claim.",
        "The excesses that apply are set out in section 4 and in your schedule.",
        "Where more than one excess could apply to the same claim, clause {ref[lim.general]}"
        " explains which ones we deduct.",
    ),
    fill=1,
    shared=True,
    asks=(
        Ask(
            "definitions",
            (
                "What <exactly|> is <the excess|an excess|a deductible> <on my policy|>?",
                "What does <excess|deductible> mean <when I claim|in plain English>?",
                "<Deductible|Excess> <vs|versus|or> premium, what's the difference?",
            ),
            facts=(0,),
        ),
    ),
)

DEF_PERIOD = ClauseDef(
    "def.period",
    "Period of insurance",
    "the period of insurance",
    (
        "Period of insurance means the period shown in your schedule for which we have accepted"
        " your premium.",
        "{v[period_note]}",
        "Cover starts and ends at the times shown in your schedule.",
    ),
    fill=1,
    shared=True,
    asks=(
        Ask(
            "definitions",
            ("What <counts as|is> the <period of insurance|policy period>?",),
        ),
        Ask(
            "definitions",
            ("When <exactly|> does my cover <start and finish|begin and end>?",),
            facts=(0, 2),
        ),
    ),
)

CONDITIONS: tuple[ClauseDef, ...] = (
    ClauseDef(
        "cond.care",
        "Taking reasonable care",
        "reasonable care",
        (
            "You must take all reasonable care to prevent loss, damage, accident or injury, and"
            " to keep {asset} in a good state of repair.",
            "{v[care_example]}",
            "If you do not take reasonable care and this causes or adds to a loss, we may refuse"
            " or reduce your claim.",
        ),
        fill=3,
        shared=True,
    ),
    ClauseDef(
        "cond.changes",
        "Telling us about changes",
        "a change in your circumstances",
        (
            "You must tell us as soon as possible about any change to the information shown in"
            " your schedule or in your statement of fact.",
            "Examples include {v[change_examples]}.",
            "When you tell us about a change, we may change your premium or the terms of this"
            " {prod}, or we may not be able to continue your cover.",
            "If you do not tell us about a change, your {prod} may not cover you fully, or at all.",
        ),
        fill=3,
        shared=True,
        lay="the part about telling you about changes",
        asks=(
            Ask(
                "procedures",
                ("Do I <have to|need to> tell you if {v[change_lay]}?",),
                facts=(0, 1),
            ),
            Ask(
                "procedures",
                (
                    "What happens if I <forget|don't remember> to <tell you|let you know> that"
                    " {v[change_lay]}?",
                ),
                facts=(3,),
            ),
        ),
    ),
    ClauseDef(
        "cond.other",
        "Other insurance",
        "other insurance",
        (
            "If any loss, damage or liability covered by this {prod} is also covered by another"
            " policy, we will only pay our proportionate share of the claim.",
            "This condition does not apply to personal accident or hospital benefits, which we"
            " pay in full.",
            "You must give us details of any other insurance when you make a claim.",
        ),
        fill=3,
        shared=True,
    ),
    ClauseDef(
        "cond.cancel_you",
        "Cancelling after the cooling-off period",
        "cancellation",
        (
            "You may cancel this {prod} at any time after the cooling-off period by telling us.",
            {
                "2024": "If you have not made a claim during the current period of insurance,"
                " we will refund the premium for the unexpired period, less an administration"
                " charge of £25.",
                "2025": "If you have not made a claim during the current period of insurance,"
                " we will refund the premium for the unexpired period, less an administration"
                " charge of £30.",
            },
            "If you have made a claim, no refund is due and any outstanding instalments must be"
            " paid.",
            "Cancellation takes effect from the date you tell us or a later date you choose.",
        ),
        fill=2,
        shared=True,
        lay="the cancellation clause",
        asks=(
            Ask(
                "procedures",
                (
                    "How much <money|of my premium> do I get back if I cancel <halfway through the"
                    " year|after a few months>?",
                ),
                supports=("abt.cooling",),
                facts=(1, 2),
            ),
            Ask(
                "procedures",
                (
                    "Is there a <fee|charge> <for cancelling|to cancel> <mid-term|part way"
                    " through>?",
                ),
                supports=("abt.cooling",),
                facts=(1,),
            ),
            Ask(
                "procedures",
                (
                    "<Has the admin fee for cancelling gone up|Did the cancellation charge"
                    " change>? <It used to be|I thought it was> <25 quid|£25>",
                    "whats the cancellation fee <now|this year>, still <£25|25 pounds> or more?",
                ),
                hinge="wording",
                versions=("2025",),
                facts=(1,),
            ),
        ),
    ),
    ClauseDef(
        "cond.cancel_us",
        "Our right to cancel",
        "our right to cancel",
        (
            "We may cancel this {prod} by giving you seven days' notice in writing or by email"
            " to the last address you gave us.",
            "We will only do this for a valid reason, such as non-payment of premium, a change"
            " in risk that we cannot insure, your failure to give us information we have asked"
            " for, or threatening or abusive behaviour towards our staff.",
            "If we cancel, we will refund the premium for the unexpired period, provided no claim"
            " has been made.",
        ),
        fill=2,
        shared=True,
        asks=(
            Ask(
                "procedures",
                ("Can you <cancel|stop> my <policy|cover> <without warning|out of the blue>?",),
                facts=(0, 1),
            ),
            Ask(
                "procedures",
                (
                    "How much notice do you give <before cancelling|if you cancel> my <policy|"
                    "insurance>?",
                ),
                facts=(0,),
            ),
        ),
    ),
    ClauseDef(
        "cond.fraud",
        "Fraud",
        "a fraudulent claim",
        (
            "If you or anyone acting for you makes a claim that is fraudulent or exaggerated in"
            " any way, we will not pay the claim.",
            "We may treat this {prod} as ended from the date of the fraud, keep any premium paid"
            " and recover from you any sums we have already paid.",
            "We may also inform the police and fraud prevention agencies.",
        ),
        fill=2,
        shared=True,
    ),
    ClauseDef(
        "cond.instalments",
        "Paying by instalments",
        "instalments",
        (
            "If you pay your premium by monthly instalments, for example by direct debit, and a"
            " payment is missed, we will write to you and try to collect it again.",
            {
                "2024": "If the payment is still not made within 14 days of our letter, we may"
                " cancel this {prod} from the date the missed payment was due.",
                "2025": "If the payment is still not made within 7 days of our letter, we may"
                " cancel this {prod} from the date the missed payment was due, and we will also"
                " send you a text message or email reminder before we do.",
            },
            "If you make a claim, we may deduct any unpaid instalments for the current period of"
            " insurance from the amount we pay.",
        ),
        fill=2,
        shared=True,
        asks=(
            Ask(
                "procedures",
                (
                    "What happens if I <miss|can't make> a monthly payment?",
                    "I <missed|bounced> a <direct debit|monthly instalment>, am I still"
                    " <covered|insured>?",
                ),
                facts=(0, 1),
            ),
            Ask(
                "procedures",
                (
                    "<How many days|How long> do I get to <pay|sort out> a missed <direct"
                    " debit|payment> now, <is it still two weeks|I thought it was 14 days>?",
                    "Did you <shorten|change> the <time|grace period> for <catching up|paying> a"
                    " missed instalment <at renewal|this year>?",
                ),
                hinge="wording",
                facts=(1,),
            ),
        ),
    ),
    ClauseDef(
        "cond.law",
        "Law and language",
        "the law that applies",
        (
            "Unless we agree otherwise, the law of England and Wales applies to this {prod}.",
            "If you live in Scotland, Northern Ireland, the Channel Islands or the Isle of Man,"
            " the law of that place applies.",
            "We will communicate with you in English.",
        ),
        fill=2,
        shared=True,
    ),
)
