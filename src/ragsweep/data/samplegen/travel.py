"""The single-trip and annual travel insurance wording, versions 2024 and 2025."""

from __future__ import annotations

from ragsweep.data.samplegen import shared
from ragsweep.data.samplegen.spec import Ask, ClauseDef, Endorsement, PartDef, ProductDef

DEFINITIONS = PartDef(
    "2",
    "Definitions",
    "definitions",
    (
        ClauseDef(
            "def.baggage",
            "Baggage",
            "baggage",
            (
                "Baggage means luggage, clothing, personal effects and valuables taken on, or"
                " bought during, a trip, that belong to you.",
                "Baggage does not include money, passports, travel documents, contact lenses,"
                " dentures or mobility aids, which are dealt with elsewhere in this policy.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does <luggage|=baggage> include <the things I buy|stuff I bought> while"
                        " I'm <away|on holiday>?",
                        "Are my <glasses|contact lenses> <counted as|treated as>"
                        " <luggage|=baggage>?",
                    ),
                    supports=("cov.baggage",),
                ),
            ),
        ),
        ClauseDef(
            "def.relative",
            "Close relative",
            "a close relative",
            (
                "Close relative means your mother, father, sister, brother, spouse, civil partner"
                " or partner, son, daughter, grandparent, grandchild, parent-in-law,"
                " son-in-law, daughter-in-law, step-parent, step-child, step-sister,"
                " step-brother, foster child or legal guardian.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does <my aunt|my cousin|my uncle> count as a close relative <for"
                        " cancelling|if I need to cancel>?",
                        "Who <counts as|is classed as> <family|a close relative> <for the"
                        " insurance|on the policy>?",
                    ),
                    supports=("cov.cancellation",),
                ),
            ),
        ),
        ClauseDef(
            "def.epidemic",
            "Epidemic and pandemic",
            "an epidemic or pandemic",
            (
                "Epidemic means a contagious disease recognised or referred to as an epidemic by"
                " the World Health Organization or an official government authority in your home"
                " area or your trip destination.",
                "Pandemic means an epidemic that is recognised or referred to as a pandemic by the"
                " World Health Organization.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Who decides <if|whether> something is a <pandemic|=pandemic> for my"
                        " travel cover?",
                    ),
                    supports=("exc.pandemic",),
                ),
            ),
        ),
        shared.DEF_EXCESS,
        ClauseDef(
            "def.hazardous",
            "Hazardous activities",
            "hazardous activities",
            (
                "Hazardous activities means any sport or leisure activity that involves an"
                " increased risk of injury, such as mountaineering, parachuting, bungee jumping,"
                " motor sports and scuba diving below the depth in clause {ref[exc.hazardous]}.",
                "A list of activities that are covered without extra premium is available on our"
                " website.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "What do you <class|count> as a <dangerous|risky|=hazardous> activity?",
                        "Is <bungee jumping|paragliding> a hazardous <activity|sport> on the"
                        " policy?",
                    ),
                    supports=("exc.hazardous",),
                ),
            ),
        ),
        ClauseDef(
            "def.home_area",
            "Home area",
            "your home area",
            (
                "Home area means the United Kingdom, the Channel Islands and the Isle of Man.",
                "Trips within the home area are covered only if you have booked at least two"
                " nights' accommodation away from your home.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    ("Am I covered on a <weekend in Cornwall|UK holiday|staycation>?",),
                ),
            ),
        ),
        ClauseDef(
            "def.medical_condition",
            "Pre-existing medical condition",
            "a pre-existing medical condition",
            (
                "Pre-existing medical condition means any illness or injury for which you have"
                " received advice, treatment or medication, or been referred for tests, in the two"
                " years before you bought this policy or booked a trip, whichever is later.",
                "It also includes any heart, circulatory, lung or cancer condition you have ever"
                " had.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "What counts as a <pre-existing|existing> <condition|medical condition>?",
                        "<I had|I was treated for> <asthma|high blood pressure> three years ago,"
                        " is that <pre-existing|still an existing condition>?",
                    ),
                    supports=("exc.medical",),
                ),
            ),
        ),
        ClauseDef(
            "def.money",
            "Money",
            "money",
            (
                "Money means cash, travellers' cheques and prepaid currency cards held for social"
                " and domestic purposes.",
                "It does not include digital currency, bank cards or credit cards.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Is a <prepaid travel card|currency card> <counted as|treated as>"
                        " <cash|=money>?",
                    ),
                    supports=("lim.money",),
                ),
            ),
        ),
        shared.DEF_PERIOD,
        ClauseDef(
            "def.public_transport",
            "Public transport",
            "public transport",
            (
                "Public transport means a scheduled aircraft, train, coach, bus or ferry that you"
                " had booked to travel on, but not a taxi or a car you had hired.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does a <taxi|minicab> <count as|class as> <public transport|=public"
                        " transport> if it doesn't turn up?",
                    ),
                    supports=("cov.missed_departure",),
                ),
            ),
        ),
        ClauseDef(
            "def.companion",
            "Travelling companion",
            "a travelling companion",
            (
                "Travelling companion means a person who has booked to travel with you on the"
                " same trip, whether or not they are insured with us.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "My <friend|mate> who was <coming with me|travelling with me> is"
                        " <ill|in hospital>, do they count as a travelling companion?",
                    ),
                    supports=("cov.cancellation",),
                ),
            ),
        ),
        ClauseDef(
            "def.trip",
            "Trip",
            "a trip",
            (
                {
                    "2024": "Trip means a journey that starts and ends in your home area during"
                    " the period of insurance, lasting no more than 31 days.",
                    "2025": "Trip means a journey that starts and ends in your home area during"
                    " the period of insurance, lasting no more than 45 days.",
                },
                "A trip starts when you leave home and ends when you return home, or to a"
                " hospital or nursing home in your home area, whichever is earlier.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "How long can <one trip|a single holiday> be on <an annual|my yearly>"
                        " policy?",
                        "When does <a trip|my trip> <start and end|begin and finish> for the"
                        " insurance?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "def.unattended",
            "Unattended",
            "unattended",
            (
                "Unattended means left where you cannot see it and are not in a position to"
                " prevent it from being taken or damaged.",
                "Property left with a person you do not know, or in a vehicle, is treated as"
                " unattended.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does my bag <left on my sun lounger|on a beach towel> count as <left"
                        " alone|=unattended>?",
                    ),
                    supports=("exc.unattended",),
                ),
            ),
        ),
        ClauseDef(
            "def.valuables",
            "Valuables",
            "valuables",
            (
                "Valuables means jewellery, watches, cameras, binoculars, telescopes, electronic"
                " games, smartwatches, tablets, laptops and mobile phones, and their accessories.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Is my <phone|tablet> <one of the|counted as> valuables <on my travel"
                        " insurance|for travel>?",
                    ),
                    supports=("lim.baggage",),
                ),
            ),
        ),
    ),
)

COVER = PartDef(
    "3",
    "What is covered",
    "cover",
    (
        ClauseDef(
            "cov.cancellation",
            "Cancellation",
            "cancellation",
            (
                "We will pay for travel and accommodation costs that you have paid, or are"
                " contracted to pay, and cannot recover, if you have to cancel your trip because"
                " you, a travelling companion, a close relative or the person you were going to"
                " stay with dies, is injured or falls ill.",
                "We will also pay if you are called for jury service, your home is seriously"
                " damaged, or you are made redundant, as long as you did not know about it when"
                " you booked.",
                "The limit is in clause {ref[lim.cancellation]} and the exclusions in section 5"
                " apply, in particular clause {ref[exc.medical]}.",
            ),
            fill=7,
            lay="the cancellation cover",
        ),
        ClauseDef(
            "cov.curtailment",
            "Cutting your trip short",
            "cutting your trip short",
            (
                "We will pay for unused travel and accommodation costs, and reasonable extra"
                " travel costs, if you have to cut your trip short and return home for one of the"
                " reasons in clause {ref[cov.cancellation]}.",
                "We will pay for unused days calculated from the day you return home.",
            ),
            fill=6,
            lay="the cutting short section",
        ),
        ClauseDef(
            "cov.medical",
            "Emergency medical expenses",
            "emergency medical treatment",
            (
                "We will pay for emergency medical, surgical and hospital treatment and ambulance"
                " costs outside your home area if you are taken ill or injured during a trip.",
                "We will also pay for emergency dental treatment to relieve sudden pain, and for"
                " bringing you home if our medical officer agrees it is necessary.",
                "You must contact our emergency assistance service before you are admitted to"
                " hospital; see clause {ref[clm.medical]}.",
            ),
            fill=7,
            lay="the medical expenses section",
        ),
        ClauseDef(
            "cov.hospital",
            "Hospital benefit",
            "hospital benefit",
            (
                "We will pay a benefit for each complete 24 hours you spend as an in-patient in a"
                " hospital outside your home area, as a result of illness or injury covered by"
                " clause {ref[cov.medical]}.",
                "This benefit is to help with costs such as phone calls and taxi fares for your"
                " visitors.",
            ),
            fill=5,
        ),
        ClauseDef(
            "cov.baggage",
            "Baggage",
            "your baggage",
            (
                "We will pay for baggage that is lost, stolen or damaged during a trip.",
                "We will pay the value of the item at the time of loss, after a deduction for wear"
                " and tear, or the cost of repair if that is less.",
                "The single item and valuables limits in clause {ref[lim.baggage]} apply.",
            ),
            fill=7,
            lay="the baggage section",
        ),
        ClauseDef(
            "cov.delayed_baggage",
            "Delayed baggage",
            "delayed baggage",
            (
                "If your baggage is delayed on the outward journey for more than 12 hours, we"
                " will pay for essential replacement items you have to buy.",
                "You must keep receipts and get written confirmation of the delay from the"
                " airline or carrier.",
                "Any amount we pay will be deducted from a later claim under clause"
                " {ref[cov.baggage]} if the baggage is permanently lost.",
            ),
            fill=6,
            lay="the delayed baggage cover",
        ),
        ClauseDef(
            "cov.money",
            "Personal money",
            "personal money",
            (
                "We will pay for personal money that is lost or stolen during a trip, provided it"
                " was carried on your person or kept in a locked safe.",
                "You must report the loss to the police within 24 hours and get a written report.",
            ),
            fill=6,
        ),
        ClauseDef(
            "cov.passport",
            "Passport and travel documents",
            "your passport",
            (
                "We will pay the cost of an emergency travel document or replacement passport,"
                " and your reasonable extra travel and accommodation costs to obtain it, if your"
                " passport is lost or stolen abroad.",
            ),
            fill=6,
            lay="the passport cover",
        ),
        ClauseDef(
            "cov.delay",
            "Travel delay and abandonment",
            "travel delay",
            (
                "If your outward or return departure on public transport is delayed for more than"
                " 12 hours because of strike, industrial action, bad weather or mechanical"
                " breakdown, we will pay a benefit for each full 12 hours of delay.",
                "If your outward departure is delayed for more than 24 hours, you may instead"
                " abandon the trip and claim under clause {ref[cov.cancellation]}.",
            ),
            fill=6,
            lay="the delay section",
        ),
        ClauseDef(
            "cov.missed_departure",
            "Missed departure",
            "missed departure",
            (
                "We will pay reasonable extra travel and accommodation costs to reach your"
                " destination if you miss your booked departure because public transport fails"
                " or the car you are travelling in breaks down or is involved in an accident.",
                "You must have allowed enough time to reach the departure point.",
            ),
            fill=6,
            lay="the missed departure section",
        ),
        ClauseDef(
            "cov.liability",
            "Personal liability",
            "personal liability",
            (
                "We will pay amounts you become legally liable to pay for accidental injury to"
                " another person or accidental damage to their property during a trip.",
                "We will not pay for liability arising from the use of motor vehicles, boats,"
                " aircraft or firearms, or from your work.",
            ),
            fill=6,
        ),
        ClauseDef(
            "cov.winter_sports",
            "Winter sports",
            "winter sports",
            (
                "Where endorsement END-TR-05 is shown in your schedule, the cover in this"
                " section extends to skiing, snowboarding and other winter sports on piste, and"
                " off piste with a qualified guide.",
                "We will also pay for the hire of replacement ski equipment if yours is lost,"
                " stolen or damaged, and a benefit if all lifts are closed by lack of snow.",
            ),
            fill=6,
            lay="the winter sports extension",
        ),
        ClauseDef(
            "cov.legal",
            "Legal expenses abroad",
            "legal expenses",
            (
                "We will pay legal costs to pursue a claim for compensation against someone who"
                " causes your death, injury or illness during a trip.",
                "We will only pay if we believe there is a reasonable chance of success.",
            ),
            fill=5,
        ),
    ),
)

LIMITS = PartDef(
    "4",
    "Limits and excesses",
    "limits",
    (
        ClauseDef(
            "lim.general",
            "How limits and excesses apply",
            "your baggage",
            (
                "The limits in this section apply to each insured person for each trip.",
                "The excess applies to each insured person, for each section of cover under"
                " which they claim, for each incident.",
                "No excess applies to claims for travel delay, delayed baggage or hospital"
                " benefit.",
            ),
            fill=5,
        ),
        ClauseDef(
            "lim.cancellation",
            "Cancellation and cutting short",
            "cancellation",
            (
                "The most we will pay for cancellation, or for cutting your trip short, is"
                " {v[cancellation_limit]} for each insured person.",
                "If you have a single trip policy, the limit is the lower of this amount and the"
                " cost of the trip.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "How much can I get back if I have to <cancel my holiday|cancel the trip>?",
                        "What's the <maximum|most> <per person|for each of us> if we <can't"
                        " go|cancel>?",
                    ),
                    supports=("cov.cancellation",),
                ),
                Ask(
                    "limits",
                    (
                        "If I have to <fly home early|come home early> because my <dad|mum> is ill,"
                        " <how much|what> do you pay?",
                    ),
                    supports=("cov.curtailment", "def.relative"),
                ),
            ),
        ),
        ClauseDef(
            "lim.medical",
            "Emergency medical expenses",
            "medical expenses",
            (
                "The most we will pay for emergency medical expenses is £10,000,000 for each"
                " insured person.",
                "Within this, the most we will pay for emergency dental treatment is"
                " {v[dental_limit]}.",
                "An excess of {v[standard_excess]} applies, unless the cost has been reduced by"
                " using a Global Health Insurance Card.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "How much <dental|dentist> treatment is covered <abroad|on holiday>?",
                        "Is there a limit on <hospital bills|medical costs> <abroad|overseas>?",
                        "Do I pay an excess if I use my <GHIC|EHIC card> in a hospital abroad?",
                    ),
                    supports=("cov.medical",),
                ),
            ),
        ),
        ClauseDef(
            "lim.hospital",
            "Hospital benefit",
            "hospital benefit",
            (
                "The hospital benefit is {v[hospital_day]} for each complete 24 hours, up to"
                " {v[hospital_max]} for each insured person.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "Do you pay <anything|money> <per day|for each day> if I'm <in|stuck in>"
                        " hospital abroad?",
                    ),
                    supports=("cov.hospital",),
                ),
            ),
        ),
        ClauseDef(
            "lim.baggage",
            "Baggage",
            "baggage",
            (
                "The most we will pay for baggage is {v[baggage_total]} for each insured person.",
                "Within this, the most we will pay for any one item, pair or set is"
                " {v[baggage_single]}, and for all valuables together {v[baggage_valuables]}.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "The airline lost my <suitcase|luggage>, how much can I claim <in total|all"
                        " together>?",
                        "What's the <most|max> you'll pay for <my phone|my camera> if it's <stolen"
                        " abroad|taken on holiday>?",
                        "Is there a single item limit on <luggage|=baggage>?",
                    ),
                    supports=("cov.baggage", "def.valuables"),
                ),
            ),
        ),
        ClauseDef(
            "lim.delayed_baggage",
            "Delayed baggage",
            "delayed baggage",
            (
                "The most we will pay for delayed baggage is {v[delayed_baggage]} for each insured"
                " person.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "My <bag|case> didn't <turn up|arrive> <at the airport|with me>, how much"
                        " can I spend on <clothes|essentials>?",
                    ),
                    supports=("cov.delayed_baggage",),
                ),
            ),
        ),
        ClauseDef(
            "lim.money",
            "Personal money",
            "personal money",
            (
                "The most we will pay for personal money is {v[money_limit]} for each insured"
                " person, of which no more than {v[cash_limit]} may be cash.",
                "For anyone under 18 years old, the cash limit is £50.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "How much <cash|money> is covered if <my wallet is|I'm>"
                        " <stolen|pickpocketed>"
                        " abroad?",
                        "<Is there a lower|What's the> <cash|money> limit for <my kids|under 18s>?",
                    ),
                    supports=("cov.money",),
                ),
            ),
        ),
        ClauseDef(
            "lim.passport",
            "Passport",
            "your passport",
            (
                "The most we will pay for replacing a passport or travel documents is"
                " {v[passport_limit]} for each insured person.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "I lost my passport <in Spain|abroad>, how much will you pay for <an"
                        " emergency one|the replacement>?",
                    ),
                    supports=("cov.passport",),
                ),
            ),
        ),
        ClauseDef(
            "lim.delay",
            "Travel delay",
            "travel delay",
            (
                "The travel delay benefit is {v[delay_benefit]} for each full 12 hours of delay,"
                " up to {v[delay_max]} for each insured person.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "My flight was <delayed|late> by <14 hours|a whole day>, <what do I get|how"
                        " much do you pay>?",
                    ),
                    supports=("cov.delay",),
                ),
            ),
        ),
        ClauseDef(
            "lim.missed_departure",
            "Missed departure",
            "missed departure",
            (
                "The most we will pay for missed departure is {v[missed_limit]} for each insured"
                " person.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "<My train was cancelled|The train broke down> and I missed my flight, how"
                        " much will you cover?",
                    ),
                    supports=("cov.missed_departure", "def.public_transport"),
                ),
            ),
        ),
        ClauseDef(
            "lim.liability",
            "Personal liability",
            "personal liability",
            (
                "The most we will pay for personal liability is £2,000,000 for any one event,"
                " including legal costs.",
                "An excess of £250 applies to claims for damage to property.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "If I <accidentally damage|break something in> the <villa|hotel room>,"
                        " what's the excess?",
                    ),
                    supports=("cov.liability",),
                ),
            ),
        ),
        ClauseDef(
            "lim.winter_sports",
            "Winter sports",
            "winter sports",
            (
                "Where endorsement END-TR-05 applies, the most we will pay for your own ski"
                " equipment is {v[ski_equipment]}, and for hiring replacement equipment £300.",
                "The piste closure benefit is £20 for each full day, up to £200.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "My <skis|snowboard> got stolen <from the rack|outside a bar>, how much"
                        " will you pay?",
                        "Do I get <money back|anything> if there's no snow and <the slopes|the"
                        " lifts> are closed?",
                    ),
                    supports=("cov.winter_sports",),
                ),
            ),
        ),
        ClauseDef(
            "lim.excess",
            "Standard excess",
            "the standard excess",
            (
                "The standard excess is {v[standard_excess]} for each insured person, for each"
                " section under which they claim, for each incident.",
                "Where endorsement END-TR-09 is shown in your schedule, no standard excess"
                " applies.",
            ),
            fill=4,
            lay="the excess clause",
            asks=(
                Ask(
                    "limits",
                    (
                        "What's the <excess|deductible> on <my travel insurance|a travel claim>?",
                        "<Do we each|Does each of us> pay <an excess|the deductible> if <the whole"
                        " family|all of us> claim?",
                    ),
                    supports=("lim.general", "def.excess"),
                ),
            ),
        ),
    ),
)

EXCLUSIONS = PartDef(
    "5",
    "What is not covered",
    "exclusions",
    (
        *shared.EXCLUSIONS_FIRST,
        ClauseDef(
            "exc.medical",
            "Pre-existing medical conditions",
            "pre-existing medical conditions",
            (
                "We will not pay any claim caused by or connected with a pre-existing medical"
                " condition of yours, unless you told us about it and we agreed in writing to"
                " cover it.",
                "We will not pay any claim if you travel against the advice of a doctor, or for"
                " the purpose of getting medical treatment.",
            ),
            fill=4,
            code_no=5,
            lay="the medical conditions exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "I <didn't mention|forgot to declare> my <diabetes|heart condition>, will"
                        " you still pay if I <get ill|need treatment> abroad?",
                        "Am I covered if <my doctor said not to travel|I travel against my"
                        " doctor's advice>?",
                    ),
                    supports=("def.medical_condition",),
                ),
            ),
        ),
        ClauseDef(
            "exc.alcohol",
            "Alcohol and drugs",
            "alcohol and drugs",
            (
                "We will not pay any claim arising from you drinking so much alcohol that your"
                " judgement is seriously affected, or from your use of drugs not prescribed by a"
                " doctor.",
                "This does not apply to claims where you are the victim of a crime.",
            ),
            fill=4,
            code_no=6,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "If I <fall off a balcony|hurt myself> after <a few drinks|drinking>, am I"
                        " still covered?",
                        "<Will|Do> you pay medical bills if I was drunk?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "exc.hazardous",
            "Hazardous activities",
            "hazardous activities",
            (
                "We will not pay any claim arising from you taking part in hazardous activities,"
                " unless they are shown as covered in your schedule.",
                {
                    "2024": "Scuba diving is covered to a depth of 30 metres, provided you hold a"
                    " recognised qualification or dive with a qualified instructor.",
                    "2025": "Scuba diving is covered to a depth of 40 metres, provided you hold a"
                    " recognised qualification or dive with a qualified instructor.",
                },
            ),
            fill=4,
            code_no=7,
            lay="the hazardous activities exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "How deep can I <scuba dive|dive> and still be covered?",
                        "<Am I covered|Is it covered> if I <hurt myself|get injured> <bungee"
                        " jumping|paragliding>?",
                    ),
                    supports=("def.hazardous",),
                ),
            ),
        ),
        ClauseDef(
            "exc.advice",
            "Travel against government advice",
            "travel against government advice",
            (
                "We will not pay any claim arising from travel to a country or area that the"
                " Foreign, Commonwealth and Development Office advised against travelling to at"
                " the time you travelled.",
                "If the advice changes after you book, you may be able to claim under clause"
                " {ref[cov.cancellation]}.",
            ),
            fill=4,
            code_no=9,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Am I covered if the <Foreign Office|FCDO> says not to <go|travel> there?",
                        "The <government|Foreign Office> changed its advice after I booked, can I"
                        " cancel?",
                    ),
                    supports=("cov.cancellation",),
                ),
            ),
        ),
        ClauseDef(
            "exc.unattended",
            "Unattended property",
            "unattended property",
            (
                "We will not pay for loss or theft of baggage, valuables or money left"
                " unattended, unless it was in a locked room or a locked safe.",
                "We will not pay for valuables or money carried in checked-in luggage.",
            ),
            fill=4,
            code_no=10,
            lay="the unattended property exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My <phone|bag> was <stolen|taken> from the beach while I was swimming,"
                        " can I claim?",
                        "I put my <laptop|camera> in my <checked bag|hold luggage> and it's gone,"
                        " will you pay?",
                    ),
                    supports=("def.unattended", "cov.baggage"),
                ),
            ),
        ),
        ClauseDef(
            "exc.pandemic",
            "Epidemics and pandemics",
            "epidemics and pandemics",
            (
                {
                    "2024": "We will not pay any claim arising from an epidemic or pandemic,"
                    " including cancellation because you, or someone you were travelling with,"
                    " caught an epidemic disease.",
                    "2025": "We will not pay any claim arising from travel restrictions, lockdowns"
                    " or quarantine imposed because of an epidemic or pandemic.",
                },
                {
                    "2025": "We will pay under clauses {ref[cov.cancellation]} and"
                    " {ref[cov.medical]} if you are diagnosed with an epidemic disease before or"
                    " during your trip.",
                },
            ),
            fill=4,
            code_no=11,
            lay="the pandemic exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "If I <test positive for covid|catch covid> before I go, can I cancel and"
                        " claim?",
                        "Are you going to pay if there's a <lockdown|quarantine> and I can't"
                        " <travel|go>?",
                    ),
                    supports=("def.epidemic",),
                ),
            ),
        ),
        ClauseDef(
            "exc.strike",
            "Known strikes and events",
            "strikes known before booking",
            (
                "We will not pay any claim arising from a strike, industrial action or other"
                " event that had been announced or had started before you booked your trip or"
                " bought this policy, whichever was later.",
            ),
            fill=4,
            code_no=12,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "The <air traffic control|airport> strike was <announced|in the news>"
                        " before I booked, am I covered for the delay?",
                    ),
                    supports=("cov.delay",),
                ),
            ),
        ),
        ClauseDef(
            "exc.insolvency",
            "Travel provider insolvency",
            "the insolvency of a travel provider",
            (
                "We will not pay any claim arising from the insolvency of an airline, tour"
                " operator, accommodation provider or booking agent.",
                {
                    "2025": "This exclusion does not apply where endorsement END-TR-14 is shown"
                    " in your schedule, in which case we will pay for the unused part of your"
                    " trip up to the limit in clause {ref[lim.cancellation]}.",
                },
            ),
            fill=4,
            code_no=14,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "The airline <went bust|went into administration> before my flight, can I"
                        " claim?",
                        "Am I covered if the <tour operator|travel company> collapses?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "exc.motorcycles",
            "Motorcycles and mopeds",
            "motorcycles and mopeds",
            (
                {
                    "2024": "We will not pay any claim arising from riding a motorcycle or moped"
                    " with an engine above 50cc, whether as driver or passenger.",
                    "2025": "We will not pay any claim arising from riding a motorcycle or moped"
                    " with an engine above 125cc, or riding any motorcycle or moped without a"
                    " helmet or without a licence valid in the country concerned.",
                },
            ),
            fill=4,
            code_no=15,
            lay="the moped exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Am I covered <riding|on> a <moped|scooter> <in Greece|in Thailand>?",
                        "If I <hire|rent> a <125cc|small> scooter <on holiday|abroad>, <will you"
                        " cover|are you covering> an accident?",
                    ),
                ),
            ),
        ),
        shared.EXCLUSION_CYBER,
        ClauseDef(
            "exc.cruise",
            "Cruises",
            "cruises",
            (
                "We will not pay any claim arising from a cruise unless endorsement END-TR-17 is"
                " shown in your schedule.",
                "With that endorsement, we will also pay for missed port departures and cabin"
                " confinement.",
            ),
            fill=4,
            code_no=18,
            versions=("2025",),
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Am I covered on a <cruise|cruise holiday> <round the Med|to Norway>?",
                        "<Is a cruise|Are cruises> covered <as standard|without extra cover>?",
                    ),
                ),
            ),
        ),
    ),
)

CLAIMS = PartDef(
    "6",
    "Making a claim",
    "claims",
    (
        ClauseDef(
            "clm.medical",
            "Medical emergencies abroad",
            "a medical emergency",
            (
                "If you are taken ill or injured abroad and need to go into hospital, you or"
                " someone acting for you must contact our 24-hour emergency assistance service"
                " before you are admitted, or if that is not possible, within 48 hours.",
                "Our medical officers will decide with the treating doctor the most appropriate"
                " treatment and whether you should be moved or brought home.",
                "For outpatient treatment, pay the costs and claim them back when you return.",
            ),
            fill=5,
            lay="the medical emergency section",
            asks=(
                Ask(
                    "procedures",
                    (
                        "<Who do I call|What do I do> if I <end up in hospital|need a hospital>"
                        " <abroad|on holiday>?",
                        "Do I have to <phone you|call the assistance line> before <going to"
                        " hospital|I'm admitted>?",
                    ),
                    supports=("cov.medical",),
                ),
            ),
        ),
        ClauseDef(
            "clm.baggage",
            "Loss, theft or damage to baggage",
            "a baggage claim",
            (
                "If baggage, money or documents are lost or stolen, you must report it to the"
                " police within 24 hours and get a written report.",
                "If baggage is lost or damaged by an airline, you must get a property"
                " irregularity report before you leave the airport and make a written claim to"
                " the airline within seven days.",
            ),
            fill=5,
            lay="the baggage claims section",
            asks=(
                Ask(
                    "procedures",
                    (
                        "The airline <lost|damaged> my <bag|suitcase>, what do I need <from"
                        " them|to get> before I claim?",
                        "<What's|Do I need> a <PIR|property irregularity report>?",
                        "How <soon|quickly> do I report a <theft|stolen wallet> to the police"
                        " <abroad|on holiday>?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "clm.cancellation",
            "Cancellation claims",
            "a cancellation claim",
            (
                "If you need to cancel, you must tell your travel provider immediately, as we will"
                " not pay for charges that increase because you delayed.",
                "For a claim caused by illness or injury, we will need a medical certificate from"
                " the treating doctor confirming that travel was not possible.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "What <paperwork|proof> do you need if I cancel because I'm ill?",
                        "<Should I|Do I have to> tell the <travel company|airline> first <before"
                        " I claim|when I cancel>?",
                    ),
                    supports=("cov.cancellation",),
                ),
            ),
        ),
        ClauseDef(
            "clm.delay",
            "Delay claims",
            "a delay claim",
            (
                "For a travel delay or missed departure claim, you must get written confirmation"
                " from the airline or carrier of the scheduled and actual departure times and the"
                " reason for the delay.",
                "You must check in for the flight or journey as planned, even if a delay has been"
                " announced.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "What <proof|evidence> do I need <to claim for|for> a delayed flight?",
                        "Do I still have to check in <if the flight is already delayed|when they"
                        " say it's late>?",
                    ),
                    supports=("cov.delay",),
                ),
            ),
        ),
        ClauseDef(
            "clm.deadline",
            "Time limit for claims",
            "the time limit for claims",
            (
                {
                    "2024": "You must tell us about a claim within 28 days of returning home.",
                    "2025": "You must tell us about a claim within 60 days of returning home.",
                },
                "Claims made later may be refused if the delay prevents us from checking them.",
            ),
            fill=5,
            lay="the claims time limit",
            asks=(
                Ask(
                    "procedures",
                    (
                        "How long after <I get back|getting home> can I <claim|make a claim>?",
                        "<Is there a deadline|Is it too late> to claim <a month|six weeks> after"
                        " my holiday?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "clm.documents",
            "Documents and receipts",
            "documents",
            (
                "You must send us original receipts, booking invoices, tickets, medical reports"
                " and police reports in support of your claim.",
                "Keep all receipts for any expenses you claim, including taxi fares and phone"
                " calls.",
            ),
            fill=5,
        ),
        ClauseDef(
            "clm.repatriation",
            "Bringing you home",
            "bringing you home",
            (
                "If our medical officer agrees, we will arrange and pay for you to be brought"
                " home, by air ambulance if medically necessary.",
                "If you refuse to be moved when our medical officer says you are fit to travel,"
                " we will not pay any further medical costs.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "Will you <fly me home|get me home> if I'm <seriously ill|in hospital>"
                        " <abroad|on holiday>?",
                        "What if I <don't want|refuse> to be <flown home|moved> when the doctor"
                        " says I can?",
                    ),
                    supports=("cov.medical",),
                ),
            ),
        ),
        ClauseDef(
            "clm.recovery",
            "Recovering costs from others",
            "recovering costs",
            (
                "You must use a Global Health Insurance Card, or any reciprocal health agreement,"
                " where available, to reduce medical costs.",
                "If you are entitled to compensation from an airline, hotel or other provider,"
                " you must claim it from them first, and we will pay only the difference.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "Do I have to <use|show> my <GHIC|health card> at the hospital?",
                        "<Should I|Do I need to> claim from the airline before <claiming from"
                        " you|I come to you>?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "clm.helpline",
            "Claims helpline",
            "the claims helpline",
            (
                "You can make a claim online or through the claims helpline shown in your"
                " schedule.",
                "The emergency assistance service is available 24 hours a day; the claims"
                " helpline is open from 8am to 8pm on weekdays and 9am to 5pm on Saturdays.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "What are the <opening hours|hours> of the <claims line|claims phone"
                        " line>?",
                        "Can I <start|make> a <travel|holiday> claim <online|on the website>?",
                    ),
                ),
            ),
        ),
    ),
)

CONDITIONS = PartDef(
    "7",
    "General conditions",
    "conditions",
    (
        *shared.CONDITIONS,
        ClauseDef(
            "cond.health",
            "Your health",
            "your health",
            (
                "You must tell us about any pre-existing medical condition before you buy this"
                " policy and before each trip.",
                "If your health changes between buying this policy and travelling, you must tell"
                " us, and we may change the terms of your cover.",
            ),
            fill=3,
            asks=(
                Ask(
                    "procedures",
                    (
                        "I've been <diagnosed with something|told I need an operation> since I"
                        " bought the policy, do I have to tell you?",
                    ),
                    supports=("exc.medical",),
                ),
            ),
        ),
    ),
)

ABOUT = PartDef("1", "About this policy", "other", shared.ABOUT)

TRAVEL = ProductDef(
    document="travel",
    code="TR",
    title="Travel Insurance Policy Wording",
    prod="travel insurance policy",
    asset="your property",
    forms={"2024": "TR-PW-2024/01", "2025": "TR-PW-2025/01"},
    starts={"2024": "1 April 2024", "2025": "1 April 2025"},
    lay_names=(
        "my travel insurance",
        "my holiday insurance",
        "my travel policy",
        "the travel cover",
    ),
    values={
        "prev_form": ("TR-PW-2023/04", "TR-PW-2024/01"),
        "asset_lay": "my holiday",
        "war_note": "This exclusion does not apply to emergency medical expenses if war breaks"
        " out while you are abroad, for the first seven days.",
        "period_note": "For an annual multi-trip policy it is twelve months; for a single trip"
        " policy it runs from the date shown until the end of the trip.",
        "care_example": "This includes keeping your baggage, money and documents with you or"
        " locked away at all times.",
        "change_examples": "a change in the health of anyone insured, a new destination, or the"
        " trip lasting longer than planned",
        "change_lay": "<I get diagnosed with|the doctor says I have> a new medical condition",
        "cancellation_limit": ("£5,000", "£7,500"),
        "dental_limit": ("£300", "£500"),
        "standard_excess": ("£75", "£100"),
        "hospital_day": ("£25", "£30"),
        "hospital_max": ("£500", "£600"),
        "baggage_total": ("£1,500", "£2,000"),
        "baggage_single": ("£250", "£300"),
        "baggage_valuables": ("£300", "£400"),
        "delayed_baggage": ("£100", "£150"),
        "money_limit": ("£300", "£400"),
        "cash_limit": ("£250", "£300"),
        "passport_limit": ("£250", "£300"),
        "delay_benefit": ("£20", "£25"),
        "delay_max": ("£200", "£250"),
        "missed_limit": ("£500", "£750"),
        "ski_equipment": ("£500", "£600"),
    },
    endorsements=(
        Endorsement("END-TR-05", "Winter sports", "cov.winter_sports", ("lim.winter_sports",)),
        Endorsement("END-TR-09", "Excess waiver", "lim.excess"),
        Endorsement("END-TR-14", "Travel provider insolvency", "exc.insolvency"),
        Endorsement("END-TR-17", "Cruise cover", "exc.cruise"),
    ),
    parts=(ABOUT, DEFINITIONS, COVER, LIMITS, EXCLUSIONS, CLAIMS, CONDITIONS),
)
